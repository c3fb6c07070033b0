// model_step on the CUDA backend, fp32 (the weights and caches of ModelStepProblem, as the CPU step runs
// them, so the logits are checked against the same reference step before anything is timed): per layer
// RMSNorm, the fused QKV GEMM (cuBLASLt), RoPE, the new K and V into the paged cache, paged attention
// (decode: the split-K decode kernel; prefill: the tiled causal prefill kernel, on tensor cores where the
// step is bf16 with a bf16 cache at head_dim 64 or 128, attention_prefill's dispatch), O GEMM and residual,
// RMSNorm, gate/up GEMM, SwiGLU, down GEMM and residual; then the final norm and the LM head over each
// sequence's last token. Decode is captured once in a CUDA graph (cudaStreamBeginCapture /
// cudaGraphInstantiate) and each run is one cudaGraphLaunch, as serving engines replay decode; prefill is
// enqueued eagerly. MoE layers as the CPU step runs them (src/cpu/cpu_model_step.cpp): router GEMM, the
// routing and permute kernels of the MoE ops (cuda_moe_kernels.cu), the routed experts' gate/up and down as
// grouped GEMMs over the rows each expert got (grouped_linear_kernels.cu: the rows per expert stay on the
// device, so a MoE decode step is captured like a dense one), SwiGLU, the weighted unpermute, and the shared
// experts as a dense MLP. MLA models (DeepSeek-V3 / R1, Kimi-K2.5) replace the attention block with
// MlaAttention (cuda_mla_step.cpp: q LoRA, latent cache, absorbed attention), captured alike.
//
// A bf16 step (GQA and MLA models) stores the weights (rounded once on upload), the caches and every activation in
// bf16: cuBLASLt GEMMs on bf16 operands with fp32 accumulation, the RMSNorm, RoPE, SwiGLU, attention, MoE and
// glue kernels' bf16 variants (fp32 arithmetic inside, each output rounded once), the residual stream in bf16,
// bf16 logits; the routing weights and the decode kernel's split partials stay fp32. The CPU step emulates
// exactly these roundings (src/cpu/cpu_model_step.hpp); the logits are checked against the fp32 reference step
// at the tolerance the rounding stages give (bf16_step_tolerance, model_step.hpp).
//
// An fp8 step is that bf16 step with FP8 linear layers and an FP8 KV cache, as the CPU emulates it: the weights
// of QKV (MLA: q_a, q_b, kv_a), O, gate/up and down (dense, shared and routed experts) E4M3 with their scales
// (quantised on upload as the CPU quantises them; per expert for the routed experts), each such GEMM's bf16
// input quantised per tensor on the device (fp8_quant_kernels.cu) before a cuBLASLt FP8 GEMM (step_linear's
// Linear) or the grouped expert kernel's FP8 variant, bf16 outputs; the caches E4M3 at kStepKvScale, written by
// the glue kernels' FP8 variants and read by the decode and prefill kernels' FP8-cache variants.

#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention_kernels.hpp"
#include "cuda_context.hpp"
#include "cuda_kernels.hpp"
#include "cuda_mla_step.hpp"
#include "cuda_moe_kernels.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fp8_quant_kernels.hpp"
#include "grouped_linear_kernels.hpp"
#include "model_step_kernels.hpp"
#include "problems/model_step_problem.hpp"
#include "rope_sampling_kernels.hpp"
#include "step_linear.hpp"

namespace fleetcast::engine::cuda {
namespace {

struct DeviceLayer {
  bool dense = true;
  DeviceBuffer attn_norm, mlp_norm, k_cache, v_cache, router;
  StepWeight qkv, o, gate_up, down, experts_gate_up, experts_down, shared_gate_up, shared_down;
};

// A GEMM of m rows only where the model has that projection (no dense layers, no shared experts: none).
std::optional<Linear> linear_if(const Context& ctx, std::int64_t m, std::int64_t n, std::int64_t k, Storage s,
                                bool fp8 = false) {
  if (n == 0 || k == 0) return std::nullopt;
  return std::optional<Linear>(std::in_place, ctx, m, n, k, s, fp8);
}

StepShape with_precision(StepShape s, const std::string& dtype) {
  s.precision = dtype;
  return s;
}

class ModelStep : public PreparedOp {
 public:
  // `dtype` ("fp32", "bf16" or "fp8", Support::dtype) is the step's precision.
  ModelStep(Context& ctx, const Shape& s, const std::string& dtype, std::string what)
      : ctx_(ctx),
        p_(specs::model_preset(s.text_at("model")), with_precision(step_shape_of(s), dtype)),
        what_(std::move(what)),
        T_(p_.shape.tokens()),
        st_(p_.shape.bf16_activations() ? Storage::bf16 : Storage::fp32),
        fp8_(p_.shape.fp8()),
        qkv_gemm_(linear_if(ctx, T_, p_.dims.mla ? 0 : p_.dims.qkv_width(), p_.dims.hidden, st_, fp8_)),
        o_gemm_(linear_if(ctx, T_, p_.dims.hidden, p_.dims.mla ? 0 : p_.dims.q_heads * p_.dims.head_dim, st_, fp8_)),
        lm_head_gemm_(ctx, p_.shape.batch, p_.dims.vocab_local, p_.dims.hidden, st_),
        gate_up_gemm_(linear_if(ctx, T_, 2 * p_.dims.dense_width, p_.dims.hidden, st_, fp8_)),
        down_gemm_(linear_if(ctx, T_, p_.dims.hidden, p_.dims.dense_width, st_, fp8_)),
        shared_gate_up_gemm_(linear_if(ctx, T_, 2 * p_.dims.shared_width, p_.dims.hidden, st_, fp8_)),
        shared_down_gemm_(linear_if(ctx, T_, p_.dims.hidden, p_.dims.shared_width, st_, fp8_)),
        router_gemm_(linear_if(ctx, T_, p_.dims.experts, p_.dims.hidden, st_)) {
    const StepDims& d = p_.dims;
    const std::int64_t H = d.hidden, dh = d.head_dim, Q = d.q_heads, KV = d.kv_heads;
    for (const StepLayer& L : p_.layers) {
      DeviceLayer& D = layers_.emplace_back();
      D.dense = L.dense;
      D.attn_norm = upload(L.attn_norm, st_);
      D.mlp_norm = upload(L.mlp_norm, st_);
      if (!d.mla) {  // MLA's projections and latent cache are MlaAttention's
        D.qkv = upload_weight(L.qkv, st_, fp8_);
        D.o = upload_weight(L.o, st_, fp8_);
        D.k_cache = upload_cache(L.k_cache, st_, fp8_);
        D.v_cache = upload_cache(L.v_cache, st_, fp8_);
      }
      D.gate_up = upload_weight(L.gate_up, st_, fp8_);
      D.down = upload_weight(L.down, st_, fp8_);
      D.router = upload(L.router, st_);
      D.experts_gate_up = upload_weight(L.experts_gate_up, st_, fp8_, d.local_experts);
      D.experts_down = upload_weight(L.experts_down, st_, fp8_, d.local_experts);
      D.shared_gate_up = upload_weight(L.shared_gate_up, st_, fp8_);
      D.shared_down = upload_weight(L.shared_down, st_, fp8_);
    }
    embedding_ = upload(p_.embedding, st_);
    final_norm_ = upload(p_.final_norm, st_);
    lm_head_ = upload(p_.lm_head, st_);
    token_ids_ = upload(p_.token_ids);
    positions_ = upload(p_.positions);
    block_table_ = upload(p_.block_table);
    cos_sin_ = upload(p_.cos_sin);
    x_ = act(T_ * H);
    h_ = act(T_ * H);
    proj_ = act(T_ * H);
    if (fp8_) {
      // Before MlaAttention, which quantises into it too: the largest input of any FP8 GEMM of the step (the
      // routed experts' inputs have up to top_k rows per token).
      const std::int64_t widest = std::max(
          {H, Q * dh, d.dense_width, d.shared_width, d.q_lora, Q * d.v_dim, d.top_k * d.expert_width, d.top_k * H});
      scratch_.emplace(T_ * widest);
    }
    if (d.mla) {
      mla_.emplace(ctx, p_,
                   StepTables{positions_.as<std::int32_t>(), block_table_.as<std::int32_t>(), cos_sin_.as<float>()},
                   st_, fp8_scratch());
    } else {
      qkv_ = act(T_ * d.qkv_width());
      q_ = act(T_ * Q * dh);
      k_ = act(T_ * KV * dh);
      q_rot_ = act(T_ * Q * dh);
      k_rot_ = act(T_ * KV * dh);
      attn_ = act(T_ * Q * dh);
    }
    const std::int64_t width = std::max(d.dense_width, d.shared_width);
    gu_ = act(T_ * 2 * width);
    act_ = act(T_ * width);
    if (d.experts > 0) {
      const std::int64_t slots = T_ * d.top_k, W = d.expert_width;
      router_logits_ = act(T_ * d.experts);
      route_weights_ = floats(slots);  // fp32 in either precision, as moe_routing writes them
      route_ids_ = DeviceBuffer(static_cast<std::size_t>(slots) * sizeof(std::int32_t));
      offsets_ = DeviceBuffer(static_cast<std::size_t>(d.local_experts + 1) * sizeof(std::int32_t));
      source_slot_ = DeviceBuffer(static_cast<std::size_t>(slots) * sizeof(std::int32_t));
      dest_row_ = DeviceBuffer(static_cast<std::size_t>(slots) * sizeof(std::int32_t));
      permuted_ = act(slots * H);
      expert_gu_ = act(slots * 2 * W);
      expert_act_ = act(slots * W);
      expert_out_ = act(slots * H);
      // SwiGLU runs over every slot; those past the rows routed here hold zeros, not uninitialised memory.
      CUDA_CHECK(cudaMemset(expert_gu_.get(), 0, expert_gu_.bytes()));
    }
    last_ = act(p_.shape.batch * H);
    last_norm_ = act(p_.shape.batch * H);
    logits_ = act(p_.shape.batch * d.vocab_local);
    if (p_.shape.decode() && !d.mla) {
      splits_ = decode_splits(p_.shape.batch, KV, Q / KV, p_.shape.context + 1, ctx.props.multiProcessorCount);
      partial_out_ = floats(p_.shape.batch * Q * splits_ * dh);
      partial_lse_ = floats(p_.shape.batch * Q * splits_);
    }
  }

  ~ModelStep() override {
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
  }
  ModelStep(const ModelStep&) = delete;
  ModelStep& operator=(const ModelStep&) = delete;

  void run() override {
    if (!p_.shape.decode()) {
      enqueue();
      return;
    }
    if (exec_ == nullptr) {  // capture the decode step once; every run replays it
      // One eager step first, as engines warm up before capturing: kernels' attributes set and modules
      // loaded outside the capture. It writes the same cache entries the replays rewrite.
      enqueue();
      CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
      CUDA_CHECK(cudaStreamBeginCapture(ctx_.s(), cudaStreamCaptureModeThreadLocal));
      enqueue();
      CUDA_CHECK(cudaStreamEndCapture(ctx_.s(), &graph_));
      CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }
    CUDA_CHECK(cudaGraphLaunch(exec_, ctx_.s()));
  }

  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(logits_.get(), 0xff, logits_.bytes(), ctx_.s()));  // NaN until written
    run();
    // A bf16 or fp8 step against the fp32 reference: the tolerance its rounding stages give (model_step.hpp).
    const CheckResult result =
        p_.check(device_reader(ctx_, logits_, st_), what_, step_tolerance(p_.shape, p_.dims), full);
    // The rows this rank's experts got: one more eager step (the same values; a decode step's graph holds no
    // copy back) with each MoE layer's offsets copied to the host after its permute.
    if (std::any_of(layers_.begin(), layers_.end(), [](const DeviceLayer& L) { return !L.dense; })) {
      routed_offsets_.clear();
      record_routing_ = true;
      enqueue();
      CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
      record_routing_ = false;
    }
    return result;
  }

  std::vector<std::vector<std::int64_t>> expert_rows() const override {
    std::vector<std::vector<std::int64_t>> rows;
    for (const auto& offsets : routed_offsets_) {
      auto& layer = rows.emplace_back();
      for (std::size_t e = 0; e + 1 < offsets.size(); ++e) layer.push_back(offsets[e + 1] - offsets[e]);
    }
    return rows;
  }

 private:
  DeviceBuffer act(std::int64_t count) const { return elements(count, st_); }
  Fp8Scratch* fp8_scratch() { return scratch_ ? &*scratch_ : nullptr; }
  Storage cache_storage() const { return fp8_ ? Storage::fp8_e4m3 : st_; }

  void attention(std::size_t l) {
    const StepDims& d = p_.dims;
    DeviceLayer& L = layers_[l];
    const std::int64_t H = d.hidden, dh = d.head_dim, Q = d.q_heads, KV = d.kv_heads;
    const std::int64_t N = p_.shape.new_tokens, C = p_.shape.context;
    const auto eps = static_cast<float>(ModelStepProblem::kEps);
    const auto table = block_table_.as<std::int32_t>();
    rmsnorm(x_.get(), L.attn_norm.get(), h_.get(), T_, H, eps, st_, ctx_.s());
    if (mla_) {
      mla_->forward(l, h_, proj_);
      add_into(x_.get(), proj_.get(), T_ * H, st_, ctx_.s());
      return;
    }
    (*qkv_gemm_)(ctx_, h_, L.qkv, qkv_, fp8_scratch());
    split_qkv({qkv_.get(), q_.get(), k_.get(), L.v_cache.get(), table, T_, Q, KV, dh, N, C, kStepPageSize,
               p_.pages_per_seq, st_, fp8_, kStepKvScale},
              ctx_.s());
    rope(q_.get(), k_.get(), positions_.as<std::int32_t>(), cos_sin_.as<float>(), q_rot_.get(), k_rot_.get(), T_, Q, KV,
         dh, st_, ctx_.s());
    write_k_cache({k_rot_.get(), L.k_cache.get(), table, T_, KV, dh, N, C, kStepPageSize, p_.pages_per_seq, st_, fp8_,
                   kStepKvScale},
                  ctx_.s());
    const auto scale = static_cast<float>(p_.scale);
    if (p_.shape.decode()) {
      DecodeArgs a{};
      a.q = q_rot_.get();
      a.k_cache = L.k_cache.get();
      a.v_cache = L.v_cache.get();
      a.block_table = table;
      a.out = attn_.get();
      a.partial_out = partial_out_.as<float>();
      a.partial_lse = partial_lse_.as<float>();
      a.batch = p_.shape.batch;
      a.context = C + 1;
      a.q_heads = Q;
      a.kv_heads = KV;
      a.dk = dh;
      a.dv = dh;
      a.page_size = kStepPageSize;
      a.pages_per_seq = p_.pages_per_seq;
      a.splits = splits_;
      a.scale = scale;
      a.kv_scale = kStepKvScale;
      a.q_storage = st_;
      a.kv_storage = cache_storage();
      attention_decode(a, ctx_.s());
    } else {
      attention_prefill({q_rot_.get(), L.k_cache.get(), L.v_cache.get(), table, attn_.get(), p_.shape.batch, N, C, Q,
                         KV, dh, kStepPageSize, p_.pages_per_seq, scale, st_, fp8_, kStepKvScale},
                        ctx_.s());
    }
    (*o_gemm_)(ctx_, attn_, L.o, proj_, fp8_scratch());
    add_into(x_.get(), proj_.get(), T_ * H, st_, ctx_.s());
  }

  void enqueue() {
    const StepDims& d = p_.dims;
    const std::int64_t H = d.hidden, B = p_.shape.batch;
    const auto eps = static_cast<float>(ModelStepProblem::kEps);
    gather_rows(embedding_.get(), token_ids_.as<std::int32_t>(), x_.get(), T_, H, st_, ctx_.s());
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      attention(l);
      DeviceLayer& L = layers_[l];
      rmsnorm(x_.get(), L.mlp_norm.get(), h_.get(), T_, H, eps, st_, ctx_.s());
      if (L.dense) {
        dense_mlp(*gate_up_gemm_, L.gate_up, *down_gemm_, L.down, d.dense_width);
      } else {
        moe(L);
      }
    }
    gather_last(x_.get(), last_.get(), B, p_.shape.new_tokens, H, st_, ctx_.s());
    rmsnorm(last_.get(), final_norm_.get(), last_norm_.get(), B, H, eps, st_, ctx_.s());
    lm_head_gemm_(ctx_, last_norm_, lm_head_, logits_);
  }

  // h_ through gate/up, SwiGLU and down, added into x_: a dense layer's FFN or the shared experts.
  void dense_mlp(const Linear& gate_up_gemm, const StepWeight& gate_up, const Linear& down_gemm, const StepWeight& down,
                 std::int64_t width) {
    gate_up_gemm(ctx_, h_, gate_up, gu_, fp8_scratch());
    swiglu(gu_.get(), act_.get(), T_, width, st_, ctx_.s());
    down_gemm(ctx_, act_, down, proj_, fp8_scratch());
    add_into(x_.get(), proj_.get(), T_ * p_.dims.hidden, st_, ctx_.s());
  }

  // The routed experts' grouped GEMM y = x w[e]^T over the rows moe_permute gave each local expert; in an fp8
  // step over x quantised per tensor (the rows routed here: offsets[local_experts] of them, read on the device).
  void experts_linear(const DeviceBuffer& x, const StepWeight& w, DeviceBuffer& y, std::int64_t n, std::int64_t k) {
    const std::int64_t E = p_.dims.local_experts;
    const auto offsets = offsets_.as<std::int32_t>();
    if (!fp8_) {
      grouped_linear(x.get(), w.values.get(), offsets, y.get(), E, T_, n, k, st_, ctx_.s());
      return;
    }
    Fp8Scratch& q = *scratch_;
    quantise_fp8({x.get(), q.x.get(), q.scale.as<float>(), q.absmax.as<unsigned>(), offsets + E, T_ * p_.dims.top_k, k},
                 ctx_.s());
    grouped_linear_fp8(q.x.get(), q.scale.as<float>(), w.values.get(), w.scales.as<float>(), offsets, y.get(), E, T_, n,
                       k, ctx_.s());
  }

  void moe(const DeviceLayer& L) {
    const StepDims& d = p_.dims;
    const std::int64_t H = d.hidden, W = d.expert_width, E = d.local_experts;
    const auto ids = route_ids_.as<std::int32_t>();
    const auto offsets = offsets_.as<std::int32_t>();
    const auto dest_row = dest_row_.as<std::int32_t>();
    (*router_gemm_)(ctx_, h_, L.router, router_logits_);
    moe_routing(router_logits_.get(), st_, ids, route_weights_.as<float>(), T_, d.experts, d.top_k, d.n_group,
                d.topk_group, d.sigmoid, ctx_.s());
    // This GPU's experts are 0 .. local_experts - 1, as in the CPU step; rows for others map to -1.
    moe_permute(h_.get(), st_, ids, permuted_.get(), offsets, source_slot_.as<std::int32_t>(), dest_row, T_, H, d.top_k,
                0, E, ctx_.s());
    if (record_routing_) {
      auto& host = routed_offsets_.emplace_back(static_cast<std::size_t>(E + 1));
      CUDA_CHECK(
          cudaMemcpyAsync(host.data(), offsets, host.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost, ctx_.s()));
    }
    // An expert gets at most every token once: T_ rows bound each expert's grid.
    experts_linear(permuted_, L.experts_gate_up, expert_gu_, 2 * W, H);
    swiglu(expert_gu_.get(), expert_act_.get(), T_ * d.top_k, W, st_, ctx_.s());
    experts_linear(expert_act_, L.experts_down, expert_out_, H, W);
    moe_unpermute(expert_out_.get(), st_, route_weights_.as<float>(), dest_row, proj_.get(), T_, H, d.top_k, ctx_.s());
    add_into(x_.get(), proj_.get(), T_ * H, st_, ctx_.s());
    if (d.shared_width > 0)
      dense_mlp(*shared_gate_up_gemm_, L.shared_gate_up, *shared_down_gemm_, L.shared_down, d.shared_width);
  }

  Context& ctx_;
  ModelStepProblem p_;
  std::string what_;
  std::int64_t T_;
  Storage st_;  // of the weights, caches and activations: fp32 or bf16 (an fp8 step: bf16 but for the below)
  bool fp8_;    // FP8 linear layers and KV cache
  std::optional<Linear> qkv_gemm_, o_gemm_;  // GQA
  Linear lm_head_gemm_;
  std::optional<Linear> gate_up_gemm_, down_gemm_, shared_gate_up_gemm_, shared_down_gemm_, router_gemm_;
  std::vector<DeviceLayer> layers_;
  DeviceBuffer embedding_, final_norm_, lm_head_, token_ids_, positions_, block_table_, cos_sin_;
  std::optional<Fp8Scratch> scratch_;  // an fp8 step's quantised GEMM inputs
  std::optional<MlaAttention> mla_;    // MLA models' attention block (after the tables and scratch it points into)
  DeviceBuffer x_, h_, qkv_, q_, k_, q_rot_, k_rot_, attn_, proj_, gu_, act_, last_, last_norm_, logits_;
  DeviceBuffer partial_out_, partial_lse_;
  DeviceBuffer router_logits_, route_weights_, route_ids_, offsets_, source_slot_, dest_row_;
  bool record_routing_ = false;                            // check(): copy each MoE layer's offsets to the host
  std::vector<std::vector<std::int32_t>> routed_offsets_;  // per MoE layer, from the last check
  DeviceBuffer permuted_, expert_gu_, expert_act_, expert_out_;
  int splits_ = 1;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

std::string model_step_support(const Context& ctx, const Shape& s) {
  const StepShape shape = step_shape_of(s);
  const StepDims d = step_dims(specs::model_preset(s.text_at("model")), shape);
  if (d.mla) {
    if (std::string why = mla_step_support(ctx, d, shape); !why.empty()) return why;
  }
  if (d.experts > kMaxRoutedExperts || d.n_group > kMaxExpertGroups)
    return "the routing kernel takes at most " + std::to_string(kMaxRoutedExperts) + " experts in at most " +
           std::to_string(kMaxExpertGroups) + " groups";
  return "";
}

std::unique_ptr<PreparedOp> make_model_step(Context& ctx, const Shape& shape, const std::string& dtype,
                                            std::string what) {
  return std::make_unique<ModelStep>(ctx, shape, dtype, std::move(what));
}

}  // namespace fleetcast::engine::cuda
