// model_step's FP8 linear layers on the CPU (cpu_model_step.hpp says what an fp8 step quantises): the weights
// quantised once, each FP8 GEMM's input quantised per tensor before it, the GEMM over the E4M3 values and its
// fp32 sums times both scales; and the KV cache's entries rounded to E4M3.

#include <cstddef>
#include <utility>

#include "cpu_kernels.hpp"
#include "cpu_model_step.hpp"
#include "cpu_moe.hpp"
#include "fleetcast/engine/fill.hpp"
#include "parallel.hpp"
#include "problems/fp8_quant.hpp"

namespace fleetcast::engine::cpu {

namespace {

// Replaces `w` by its E4M3 values and returns its scale; 0 for a tensor the layer does not have.
float quantise_tensor(std::vector<float>& w) {
  if (w.empty()) return 0.0f;
  Fp8Weights q = quantise_fp8_weights(w, 1);
  w = std::move(q.values);
  return q.scales[0];
}

// The same for a stack of `experts` equal tensors, a scale each.
std::vector<float> quantise_experts(std::vector<float>& w, std::int64_t experts) {
  if (w.empty()) return {};
  Fp8Weights q = quantise_fp8_weights(w, experts);
  w = std::move(q.values);
  return std::move(q.scales);
}

}  // namespace

void ModelStepRunner::prepare_fp8() {
  // On the copies while they still hold the problem's fp32 weights (an FP8 checkpoint's E4M3 values are its
  // truth: no bf16 rounding before). E4M3 values are bf16 values too, so the bf16 rounding after leaves them.
  for (std::size_t l = 0; l < bf16_layers_.size(); ++l) {
    StepLayer& L = bf16_layers_[l];
    Fp8Scales& S = fp8_scales_[l];
    for (auto [w, scale] : {std::pair{&L.qkv, &S.qkv},
                            {&L.o, &S.o},
                            {&L.gate_up, &S.gate_up},
                            {&L.down, &S.down},
                            {&L.shared_gate_up, &S.shared_gate_up},
                            {&L.shared_down, &S.shared_down},
                            {&L.q_a, &S.q_a},
                            {&L.q_b, &S.q_b},
                            {&L.kv_a, &S.kv_a}})
      *scale = quantise_tensor(*w);
    S.experts_gate_up = quantise_experts(L.experts_gate_up, p_.dims.local_experts);
    S.experts_down = quantise_experts(L.experts_down, p_.dims.local_experts);
    for (std::vector<float>* cache : {&L.k_cache, &L.v_cache}) store_cache(cache->data(), std::ssize(*cache));
  }
}

void ModelStepRunner::store_cache(float* v, std::int64_t count) const {
  if (!fp8_) return;
  for (std::int64_t i = 0; i < count; ++i) v[i] = round_e4m3(v[i] / kStepKvScale) * kStepKvScale;
}

float ModelStepRunner::quantise_input(const float* x, std::int64_t count) {
  if (std::ssize(fp8_x_) < count) fp8_x_.resize(static_cast<std::size_t>(count));
  const float scale = fp8_scale(x, count);
  parallel_for(count, 1, [&](std::int64_t i) { fp8_x_[static_cast<std::size_t>(i)] = round_e4m3(x[i] / scale); });
  return scale;
}

void ModelStepRunner::linear(const float* x, const std::vector<float>& w, float w_scale, float* y, std::int64_t m,
                             std::int64_t n, std::int64_t k) {
  if (w_scale == 0.0f) {
    gemm(x, w.data(), y, m, n, k);
    return;
  }
  // As cuBLASLt's FP8 GEMM: fp32 sums of the E4M3 products, times scale_a x scale_b.
  const float scale = quantise_input(x, m * k) * w_scale;
  gemm(fp8_x_.data(), w.data(), y, m, n, k);
  parallel_for(m * n, 1, [&](std::int64_t i) { y[i] *= scale; });
}

void ModelStepRunner::grouped(const float* x, const std::vector<float>& w, const std::vector<float>& w_scales, float* y,
                              std::int64_t rows, std::int64_t n, std::int64_t k) {
  const std::int64_t experts = p_.dims.local_experts;
  if (w_scales.empty()) {
    moe_grouped_gemm(x, w.data(), offsets_.data(), y, experts, n, k);
    return;
  }
  // One dynamic scale over every row routed here (vLLM's per-tensor activation scale), one per expert's weights.
  const float x_scale = quantise_input(x, rows * k);
  moe_grouped_gemm(fp8_x_.data(), w.data(), offsets_.data(), y, experts, n, k);
  for (std::int64_t e = 0; e < experts; ++e) {
    const float scale = x_scale * w_scales[static_cast<std::size_t>(e)];
    for (std::int64_t i = std::int64_t{offsets_[e]} * n; i < std::int64_t{offsets_[e + 1]} * n; ++i) y[i] *= scale;
  }
}

}  // namespace fleetcast::engine::cpu
