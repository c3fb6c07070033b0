#pragma once
// model_step on the CPU: the step's ops in order, each one of the CPU backend's own kernels (cpu_kernels.hpp,
// cpu_moe.hpp), on one GPU's share of the model. No collectives: the tensor-parallel all-reduces and the
// expert-parallel dispatch and combine are not run (one rank; their cost is the collectives' own ops).

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
  void moe(std::int64_t layer);
  void dense_mlp(const std::vector<float>& gate_up, const std::vector<float>& down, std::int64_t width);

  ModelStepProblem& p_;
  std::int64_t tokens_;
  std::vector<float> x_, h_, qkv_, q_, k_, q_rot_, k_rot_, attn_, proj_, gu_, act_;
  std::vector<float> router_logits_, route_weights_, permuted_, expert_gu_, expert_act_, expert_out_;
  std::vector<std::int32_t> route_ids_, offsets_, source_slot_, dest_row_;
  std::vector<float> last_, last_norm_, logits_;
};

}  // namespace fleetcast::engine::cpu
