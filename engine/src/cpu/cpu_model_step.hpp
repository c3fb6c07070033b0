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

 private:
  void attention(std::int64_t layer);
  void prepare_mla();
  void mla_attention(std::int64_t layer);
  // Paged attention of the q [tokens, q_heads, dk] over the cache, the decode kernel once per step (decode)
  // or once per new token (prefill: causal, the new entries already in the cache).
  void paged_attention(const float* q, const float* k_cache, const float* v_cache, float* out, std::int64_t dk,
                       std::int64_t dv);
  void moe(std::int64_t layer);
  void dense_mlp(const std::vector<float>& gate_up, const std::vector<float>& down, std::int64_t width);
  // The weights the step multiplies by: the problem's, or their bf16 copies.
  StepLayer& layer(std::int64_t l) { return bf16_ ? bf16_layers_[static_cast<std::size_t>(l)] : p_.layers[l]; }
  // Rounds `count` values to bf16 in place, in a bf16 step; nothing in an fp32 one.
  void store(float* v, std::int64_t count) const;
  void store(std::vector<float>& v, std::int64_t count) const { store(v.data(), count); }

  ModelStepProblem& p_;
  std::int64_t tokens_;
  bool bf16_ = false;
  std::vector<StepLayer> bf16_layers_;  // a bf16 step's weights and caches, rounded once
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
};

}  // namespace fleetcast::engine::cpu
