#pragma once
// Forms the steps of a replica's DP ranks: SGLang's prefill delayer decides before the ranks form them, TensorRT-LLM's
// attention-DP balance reshapes them after (each does nothing for another engine or a single rank). The replica
// actor and the fast closed-loop replay both form their steps here, so they apply the same rules.

#include <vector>

#include "fleetcast/simulator/attention_dp_balance.hpp"
#include "fleetcast/simulator/batch.hpp"
#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/prefill_delayer.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

class DpStepFormer {
 public:
  DpStepFormer(const specs::SchedulerSpec& spec, int dp_ranks) : delayer_(spec, dp_ranks), balance_(spec, dp_ranks) {}

  // batches[k] becomes rank k's step at `now`.
  void form(std::vector<Batcher>& ranks, std::vector<BatchShape>& batches, double now) {
    delayer_.negotiate(ranks);
    for (std::size_t k = 0; k < ranks.size(); ++k) batches[k] = ranks[k].schedule(now);
    delayer_.record(ranks);
    balance_.apply(ranks, batches);
  }

 private:
  PrefillDelayer delayer_;
  AttentionDpBalance balance_;
};

}  // namespace fleetcast::simulator
