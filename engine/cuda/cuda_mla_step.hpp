#pragma once
// model_step's MLA attention block on the CUDA backend (DeepSeek-V3 / R1, Kimi-K2.5), fp32 or bf16, absorbed, as
// the CPU step runs it (src/cpu/cpu_model_step_mla.cpp): the q path through its LoRA (q_a GEMM, RMSNorm,
// q_b GEMM; q_b alone without a q LoRA), kv_a into the 512 latent + 64 rope key, the latent RMS-normed,
// RoPE on the rope parts, the new 576-wide entries into the paged latent cache, each head's q_nope through
// its W_UK into the latent space (one strided-batched cuBLASLt GEMM over the heads, reading kv_b in place),
// the decode attention kernel over one entry per token whose first 512 are the value, each head's latent
// output through its W_UV (strided-batched again, written straight into the O GEMM's input), then O.
// Prefill runs the same decode kernel in one launch with a causal row per new token (DecodeArgs::
// queries_per_seq), as the CPU step runs it once per new token. Every call only enqueues on the context's
// stream: a decode step is captured in the step's CUDA graph. In bf16 every weight, the latent cache and
// every buffer between the calls is bf16 (GEMMs accumulate in fp32, kernels compute in fp32 and round
// their output once), as the CPU step emulates it (src/cpu/cpu_model_step_mla.cpp). In an fp8 step q_a, q_b,
// kv_a and O are FP8 GEMMs (E4M3 weights, inputs quantised into the step's scratch) and the latent cache E4M3;
// W_UK and W_UV stay bf16, as vLLM absorbs kv_b.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuda_context.hpp"
#include "problems/model_step_problem.hpp"
#include "step_linear.hpp"

namespace fleetcast::engine::cuda {

// Device pointers the block shares with the rest of the step.
struct StepTables {
  const std::int32_t* positions;    // [tokens]
  const std::int32_t* block_table;  // [batch, pages_per_seq]
  const float* cos_sin;             // [context + new_tokens, rope]
};

// Whether the decode kernel can serve this model's MLA heads here ("" if so).
std::string mla_step_support(const Context& ctx, const StepDims& d, const StepShape& s);

class MlaAttention {
 public:
  // Uploads each layer's MLA weights and latent cache from `p`, stored as `st` (fp32, or bf16 rounded once; an fp8
  // step's FP8 weights and cache as above). `scratch`: the step's, in an fp8 step (else nullptr); must outlive this.
  MlaAttention(const Context& ctx, const ModelStepProblem& p, StepTables tables, Storage st, Fp8Scratch* scratch);
  // proj [tokens, hidden] = the attention block of `layer` on h [tokens, hidden] (the normed residual), both
  // stored as the block's storage; writes the step's new entries into the layer's latent cache.
  void forward(std::size_t layer, const DeviceBuffer& h, DeviceBuffer& proj);

 private:
  struct Layer {
    StepWeight q_a, q_b, kv_a, o;
    DeviceBuffer q_a_norm, kv_a_norm, kv_b, cache;
  };
  const Context& ctx_;
  const ModelStepProblem& p_;
  StepTables tables_;
  Storage st_;
  bool fp8_;
  Fp8Scratch* scratch_;
  std::int64_t T_;
  std::optional<Linear> q_a_gemm_;
  Linear q_b_gemm_, kv_a_gemm_, o_gemm_;
  BatchedLinear w_uk_gemm_, w_uv_gemm_;
  std::vector<Layer> layers_;
  DeviceBuffer cq_, cq_norm_, q_full_, kv_full_, latent_, latent_norm_, q_pe_, k_pe_, q_pe_rot_, k_pe_rot_;
  DeviceBuffer q_attn_, attn_latent_, attn_, partial_out_, partial_lse_;
  int splits_ = 1;
};

}  // namespace fleetcast::engine::cuda
