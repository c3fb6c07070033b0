#include "fleetcast/simulator/attention_dp_balance.hpp"

namespace fleetcast::simulator {

AttentionDpBalance::AttentionDpBalance(const specs::SchedulerSpec& spec, int dp_ranks)
    : on_(spec.policy == specs::SchedulerPolicy::trtllm && spec.adp_balance && dp_ranks > 1),
      timeout_iters_(spec.adp_timeout_iters),
      batching_wait_iters_(spec.adp_batching_wait_iters),
      max_batch_(spec.max_num_seqs) {}

bool AttentionDpBalance::apply(std::vector<Batcher>& ranks, std::vector<BatchShape>& batches) {
  if (!on_) return false;
  bool all_have_room = true, all_have_contexts = true, all_decode = true;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const int decodes = ranks[k].step_decodes(), contexts = ranks[k].step_contexts();
    const bool dummy = decodes == 0 && contexts == 0;  // an idle rank's dummy generation request
    all_have_room = all_have_room && decodes < max_batch_;
    all_have_contexts = all_have_contexts && contexts > 0;
    all_decode = all_decode && (decodes > 0 || dummy);
  }
  bool hold = false;
  if (all_have_room && all_have_contexts) {
    waiting_iters_ = 0;
    if (all_decode) {
      if (batching_iters_ < batching_wait_iters_) {
        ++batching_iters_;
        hold = true;
      } else {
        batching_iters_ = 0;
      }
    }
  } else {
    ++waiting_iters_;
    hold = true;
    if (waiting_iters_ >= timeout_iters_ || !all_decode) {
      waiting_iters_ = 0;
      hold = false;
    }
  }
  if (!hold) return false;
  bool held = false;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    if (ranks[k].step_contexts() == 0) continue;
    batches[k] = ranks[k].hold_contexts();
    held = true;
  }
  return held;
}

}  // namespace fleetcast::simulator
