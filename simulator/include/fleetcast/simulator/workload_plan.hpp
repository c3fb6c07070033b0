#pragma once
// The traffic resolved before simulating: each class's arrival rate, how many of the scenario's requests it
// sends, its estimated share of the fleet's capacity, and the capacity estimate of the whole mix.
//
// Rules (docs/SPECS.md says them to users):
// - An open-loop class's `load` is its own share of the fleet's capacity for that class's lengths:
//   rate = load x (the fleet's capacity serving that class alone). Class loads therefore add up: a fleet
//   spends a share rate_i / capacity_i of its time on class i, and the mix's estimated load is the sum.
// - `num_requests` is the scenario's total, split over the classes in proportion to their expected request
//   rates (largest remainder, ties to the lower class index): an open-loop class's rate, a closed-loop
//   class's clients / (think time + estimated response time with that many clients in the batch).
// - The mix's capacity is the total rate at which the mix, in those proportions, saturates the fleet:
//   1 / sum(w_i / capacity_i), w_i the request shares. Averaging lengths first would cost a mix of short and
//   very long prompts as if all were middling, which the KV cache and the step time do not do.

#include <cstdint>
#include <functional>
#include <vector>

#include "fleetcast/simulator/capacity.hpp"

namespace fleetcast::simulator {

struct ClassPlan {
  double rate_per_s = 0.0;           // open loop: the resolved arrival rate; closed loop: 0
  double expected_rate_per_s = 0.0;  // open loop: rate_per_s; closed loop: the estimate above
  double load = 0.0;                 // expected rate / capacity: the estimated share of the fleet's time
  std::int64_t requests = 0;         // this class's part of num_requests
  CapacityEstimate capacity;         // the fleet serving this class alone
};

struct WorkloadPlan {
  std::vector<ClassPlan> classes;  // in the workload's order
  double open_rate_per_s = 0.0;    // sum of the open-loop rates
  double load = 0.0;               // sum of the class loads
  // The mix: requests_per_s as above; batch and step weighted by each class's share of the fleet's time;
  // limited_by that of the class taking the largest share.
  CapacityEstimate mix;
};

WorkloadPlan plan_workload(const specs::ScenarioSpec& s, const StepTimeModel& model, const MemoryPlan& memory);

// The same rules over any capacity estimate: `capacity(class, max batch per replica)` for the fleet serving the
// class alone, `replicas` the ones closed-loop clients spread over (disaggregation: the decode pool's).
using CapacityFunction = std::function<CapacityEstimate(const specs::RequestClass&, double max_batch_per_replica)>;
WorkloadPlan plan_workload(const specs::ScenarioSpec& s, int replicas, const CapacityFunction& capacity);

// Splits `total` in proportion to `weights` (>= 0, not all 0): each part the floor of its share, the rest one
// by one to the largest remainders, ties to the lower index. Deterministic and exact: the parts sum to total.
std::vector<std::int64_t> split_requests(std::int64_t total, const std::vector<double>& weights);

}  // namespace fleetcast::simulator
