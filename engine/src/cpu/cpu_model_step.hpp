#pragma once
// model_step on the CPU: the step's ops in order, each one of the CPU backend's own kernels (cpu_kernels.hpp,
// cpu_moe.hpp), on one GPU's share of the model. No collectives: the tensor-parallel all-reduces and the
// expert-parallel dispatch and combine are not run (one rank; their cost is the collectives' own ops).
//
// MLA layers run the absorbed form in decode and prefill alike: each head's q_nope goes through its W_UK
// into the latent space and attention reads one latent + rope entry per token, as FlashMLA and vLLM's MLA
// decode do. Engines prefill long chunks un-absorbed instead (vLLM v0.11 vllm/v1/attention/backends/mla/
// common.py expands the latents through kv_b and runs 192-wide multi-head attention, fewer FLOPs when the
// chunk is long); the CPU step's prefill already runs the decode kernel once per new token, so one form
// keeps one kernel. The reference runs the un-absorbed form, so the two check each other's algebra.
//
// A bf16 step (StepShape::precision "bf16", GQA and MLA models) emulates what the CUDA bf16 step computes: the
// weights and the cached context rounded to bf16 once (copies; the problem keeps its fp32 weights for the
// reference), and every op's output rounded to bf16 where the CUDA step stores it in a bf16 buffer (GEMM
// outputs, RMSNorm, RoPE, SwiGLU, attention, the weighted unpermute, each residual add, the logits; MLA's
// q_a, q norm, q_b, kv_a, latent norm, W_UK and W_UV outputs too), with fp32 arithmetic inside each op.
// Equal to the CUDA step's values up to summation order; stored in fp32.
//
// An fp8 step (precision "fp8") is that bf16 step with FP8 linear layers and an FP8 KV cache, as the CUDA fp8
// step runs them: the weights of QKV (MLA: q_a, q_b, kv_a), O, gate/up and down (dense, routed and shared
// experts) quantised once to E4M3 with a per-tensor scale (fp8_quant.hpp; per expert for the routed experts),
// each such GEMM's input quantised per tensor (dynamic scale) into E4M3 values, the GEMM over the E4M3 values
// with its fp32 sums times the two scales, rounded to bf16; the cache's entries rounded to E4M3 at scale
// kStepKvScale. The router, the LM head and MLA's W_UK and W_UV stay bf16, as vLLM holds them.

#include <cstdint>
#include <vector>

#include "../problems/model_step_problem.hpp"

namespace fleetcast::engine::cpu {

class ModelStepRunner {
 public:
  // Works on `p`'s weights and writes the new tokens' K and V into its caches; `p` must outlive this.
  explicit ModelStepRunner(ModelStepProblem& p);
  void run();
  const std::vector<float>& logits() const { return logits_; }  // [batch, vocab_local]
  // The rows each local expert received in the last run, one list per MoE layer (none for a dense model).
  std::vector<std::vector<std::int64_t>> expert_rows() const;

 private:
  void attention(std::int64_t layer);
  void prepare_mla();
  void mla_attention(std::int64_t layer);
  // Paged attention of the q [tokens, q_heads, dk] over the cache, the decode kernel once per step (decode)
  // or once per new token (prefill: causal, the new entries already in the cache).
  void paged_attention(const float* q, const float* k_cache, const float* v_cache, float* out, std::int64_t dk,
                       std::int64_t dv);
  void moe(std::int64_t layer);
  // An fp8 step's per-tensor scales of one layer's FP8 weights; 0 (and no expert scales): not an FP8 GEMM.
  struct Fp8Scales {
    float qkv = 0, o = 0, gate_up = 0, down = 0, shared_gate_up = 0, shared_down = 0, q_a = 0, q_b = 0, kv_a = 0;
    std::vector<float> experts_gate_up, experts_down;  // one per local expert
  };
  void prepare_fp8();
  void dense_mlp(const std::vector<float>& gate_up, float gate_up_scale, const std::vector<float>& down,
                 float down_scale, std::int64_t width);
  // y[m, n] = x[m, k] w[n, k]^T; an FP8 GEMM when w_scale > 0 (w holds E4M3 values, x is quantised per tensor).
  void linear(const float* x, const std::vector<float>& w, float w_scale, float* y, std::int64_t m, std::int64_t n,
              std::int64_t k);
  // The routed experts' grouped GEMM over offsets_; FP8 when w_scales (one per local expert) is not empty.
  void grouped(const float* x, const std::vector<float>& w, const std::vector<float>& w_scales, float* y,
               std::int64_t rows, std::int64_t n, std::int64_t k);
  // x quantised per tensor into fp8_x_ (E4M3 values); returns the scale.
  float quantise_input(const float* x, std::int64_t count);
  // The weights the step multiplies by: the problem's, or their bf16 (fp8) copies.
  StepLayer& layer(std::int64_t l) { return bf16_ ? bf16_layers_[static_cast<std::size_t>(l)] : p_.layers[l]; }
  const Fp8Scales& scales(std::int64_t l) const { return fp8_scales_[static_cast<std::size_t>(l)]; }
  // Rounds `count` values to bf16 in place, in a bf16 or fp8 step; nothing in an fp32 one.
  void store(float* v, std::int64_t count) const;
  void store(std::vector<float>& v, std::int64_t count) const { store(v.data(), count); }
  // Rounds `count` cache entries just written to E4M3 in an fp8 step (serial: called per token); else nothing.
  void store_cache(float* v, std::int64_t count) const;

  ModelStepProblem& p_;
  std::int64_t tokens_;
  bool bf16_ = false;  // activations stored in bf16: a bf16 or an fp8 step
  bool fp8_ = false;
  std::vector<StepLayer> bf16_layers_;  // a bf16 (fp8) step's weights and caches, rounded once
  std::vector<Fp8Scales> fp8_scales_;   // per layer; all 0 outside an fp8 step
  std::vector<float> fp8_x_;            // an FP8 GEMM's quantised input
  std::vector<float> bf16_final_norm_, bf16_lm_head_;
  std::vector<float> x_, h_, qkv_, q_, k_, q_rot_, k_rot_, attn_, proj_, gu_, act_;
  std::vector<float> router_logits_, route_weights_, permuted_, expert_gu_, expert_act_, expert_out_;
  std::vector<std::int32_t> route_ids_, offsets_, source_slot_, dest_row_;
  std::vector<float> last_, last_norm_, logits_;
  // MLA: per layer W_UK^T [q_heads, kv_lora, nope] and W_UV [q_heads, v, kv_lora], split out of kv_b once
  // (as vLLM's process_weights_after_loading does), and the step's buffers.
  std::vector<std::vector<float>> w_uk_t_, w_uv_;
  std::vector<float> cq_, cq_norm_, q_full_, kv_full_, latent_, latent_norm_, q_pe_, k_pe_, q_pe_rot_, k_pe_rot_;
  std::vector<float> q_nope_by_head_, q_latent_by_head_, q_attn_, attn_latent_, latent_by_head_, v_by_head_;
  std::vector<std::int32_t> head_offsets_;
  std::vector<std::vector<std::int64_t>> expert_rows_;  // per layer: each local expert's rows (dense layers: none)
};

}  // namespace fleetcast::engine::cpu
