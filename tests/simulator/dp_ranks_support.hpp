#pragma once
// DP ranks of one replica stepped together, one second per step, forming their steps as the replica actor does
// (DpStepFormer: SGLang's prefill delayer and TensorRT-LLM's attention-DP balance where the spec asks for them).

#include <utility>
#include <vector>

#include "batcher_support.hpp"
#include "fleetcast/simulator/dp_step_former.hpp"

namespace fleetcast::test {

struct DpRanks {
  std::vector<simulator::Batcher> ranks;
  std::vector<simulator::BatchShape> batches;
  simulator::DpStepFormer former;
  double t = 0.0;
  explicit DpRanks(const specs::SchedulerSpec& s, int n = 2) : batches(static_cast<std::size_t>(n)), former(s, n) {
    for (int k = 0; k < n; ++k) ranks.emplace_back(s, kv(1e9));
  }
  // One step; returns the prompt tokens the first two ranks ran (the second 0 with one rank).
  std::pair<int, int> step() {
    former.form(ranks, batches, t);
    t += 1.0;
    for (auto& b : ranks) b.complete(t);
    return {batches[0].prefill_tokens(), batches.size() > 1 ? batches[1].prefill_tokens() : 0};
  }
};

}  // namespace fleetcast::test
