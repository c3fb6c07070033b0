#pragma once
// The host side of a model_step case: random weights at the preset's per-GPU shapes (fp32, scaled by
// 1/sqrt(fan-in) so activations keep unit size through the layers, as trained weights do), a paged KV
// cache per layer holding `context` random tokens per sequence, the step's token ids, and the check of the
// step's logits against the reference step (src/reference/model_step_reference.hpp).
//
// Layouts, row-major, per GPU (StepDims):
//   qkv [q_heads * d + 2 * kv_heads * d, hidden]: the q rows, then k, then v; o [hidden, q_heads * d]
//   gate_up [2 * width, hidden] (gate rows, then up), down [hidden, width]: dense and shared experts alike
//   router [experts, hidden]; experts_gate_up [local_experts, 2 * width, hidden]; experts_down
//   [local_experts, hidden, width]; k_cache and v_cache [pages, kStepPageSize, kv_heads, d]
//   embedding and lm_head [vocab_local, hidden]: this GPU's rows of the vocabulary
// MLA layers instead of qkv and a V cache (DeepSeek-V3's checkpoint layout, heads split over tp):
//   q_a [q_lora, hidden], q_a_norm [q_lora], q_b [q_heads * (nope + rope), q_lora] (hidden when q_lora is 0;
//   each head's nope rows, then its rope rows); kv_a [kv_lora + rope, hidden] (the latent, then the shared
//   rope key), kv_a_norm [kv_lora]; kv_b [q_heads * (nope + v), kv_lora] (each head's W_UK rows, then its
//   W_UV rows); o [hidden, q_heads * v]; k_cache [pages, kStepPageSize, kv_lora + rope]: the normed latent,
//   then the rotated rope key. q_a and kv_a are replicated over tp, as vLLM's ReplicatedLinear holds them.

#include <cstdint>
#include <string>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/model_step.hpp"

namespace fleetcast::engine {

struct StepLayer {
  bool dense = true;
  std::vector<float> attn_norm, qkv, o, mlp_norm;
  std::vector<float> gate_up, down;                              // dense FFN
  std::vector<float> router, experts_gate_up, experts_down;      // routed experts
  std::vector<float> shared_gate_up, shared_down;                // shared experts, when the model has them
  std::vector<float> q_a, q_a_norm, q_b, kv_a, kv_a_norm, kv_b;  // MLA
  std::vector<float> k_cache, v_cache;  // the step writes its new tokens' K and V at positions >= context
};

struct ModelStepProblem {
  ModelStepProblem(const specs::ModelSpec& model, const StepShape& shape);
  static constexpr double kEps = 1e-6;
  static constexpr double kRopeTheta = 10000.0;

  StepShape shape;
  StepDims dims;
  std::vector<StepLayer> layers;
  std::vector<float> embedding, final_norm, lm_head;
  std::vector<std::int32_t> token_ids;    // [batch * new_tokens], rows of this GPU's embedding
  std::vector<std::int32_t> positions;    // [batch * new_tokens]: context + j for a sequence's token j
  std::vector<std::int32_t> block_table;  // [batch, pages_per_seq], a seeded shuffle of the pages
  std::vector<float> cos_sin;             // [context + new_tokens, rotated_dim]: cosines, then sines
  std::int64_t pages_per_seq = 0, num_pages = 0;
  double scale = 0.0;  // attention's 1 / sqrt(head_dim) (MLA: nope + rope, the un-absorbed q.k width)

  // Cache element offset of token t of sequence b, kv head h (MLA: h 0, the entry of the token).
  std::int64_t cache_offset(std::int64_t b, std::int64_t t, std::int64_t h) const;

  // Multiply-adds the reference needs for one sequence: the sampled check runs it only below a budget.
  double reference_work_per_sequence() const;

  // `logits` reads [batch, vocab_local], the LM head's output for each sequence's last token. Every
  // sequence when `full`; otherwise the first and last, when the reference fits the budget
  // (kReferenceBudget multiply-adds), else the first only if it fits, else none: large prefill steps rely
  // on the full check at the op's small shape and on each op's own check.
  static constexpr double kReferenceBudget = 4e8;
  CheckResult check(const ReadRange& logits, const std::string& what, double tolerance, bool full) const;
};

}  // namespace fleetcast::engine
