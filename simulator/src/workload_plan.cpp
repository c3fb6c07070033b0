#include "fleetcast/simulator/workload_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fleetcast::simulator {

std::vector<std::int64_t> split_requests(std::int64_t total, const std::vector<double>& weights) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::int64_t> parts(weights.size(), 0);
  std::vector<double> remainders(weights.size(), 0.0);
  std::int64_t given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double exact = sum > 0.0 ? static_cast<double>(total) * weights[i] / sum : 0.0;
    parts[i] = static_cast<std::int64_t>(std::floor(exact));
    remainders[i] = exact - static_cast<double>(parts[i]);
    given += parts[i];
  }
  std::vector<std::size_t> order(weights.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainders[a] > remainders[b]; });
  // Rounding can leave at most one request per class; the loop also covers weights that are all zero.
  for (std::size_t k = 0; given < total; k = (k + 1) % order.size(), ++given) ++parts[order[k]];
  return parts;
}

namespace {

// Closed loop: N clients each wait for an answer, then think. With the batch capped at the clients a replica
// holds, a response takes about `mean output` steps of the step time at that batch.
double closed_loop_rate(const specs::RequestClass& c, const CapacityEstimate& at_clients) {
  const double response_s = std::max(1.0, c.output_tokens.mean()) * at_clients.step_s;
  return c.arrival.clients / (c.arrival.think_time_s + response_s);
}

}  // namespace

WorkloadPlan plan_workload(const specs::ScenarioSpec& s, const StepTimeModel& model, const MemoryPlan& memory) {
  return plan_workload(s, s.deployment.num_replicas(), [&](const specs::RequestClass& c, double max_batch) {
    return estimate_capacity(s, c, model, memory, max_batch);
  });
}

WorkloadPlan plan_workload(const specs::ScenarioSpec& s, int replicas, const CapacityFunction& capacity) {
  WorkloadPlan plan;
  std::vector<double> weights;
  for (const specs::RequestClass& c : s.workload.classes) {
    ClassPlan cp;
    cp.capacity = capacity(c, 1e300);
    const auto& a = c.arrival;
    if (a.kind == specs::ArrivalKind::closed_loop) {
      const double per_replica = static_cast<double>(a.clients) / replicas;
      cp.expected_rate_per_s = closed_loop_rate(c, capacity(c, per_replica));
    } else {
      cp.rate_per_s = a.load > 0.0 ? a.load * cp.capacity.requests_per_s : a.rate_per_s;
      cp.expected_rate_per_s = cp.rate_per_s;
      plan.open_rate_per_s += cp.rate_per_s;
    }
    cp.load = cp.expected_rate_per_s / cp.capacity.requests_per_s;
    plan.load += cp.load;
    weights.push_back(cp.expected_rate_per_s);
    plan.classes.push_back(cp);
  }
  const std::vector<std::int64_t> parts = split_requests(s.num_requests, weights);
  for (std::size_t i = 0; i < parts.size(); ++i) plan.classes[i].requests = parts[i];

  if (plan.classes.size() == 1) {
    plan.mix = plan.classes[0].capacity;  // exactly, not through 1 / (1 / x)
    return plan;
  }
  // Seconds of fleet time per request of the mix: sum of w_i / capacity_i.
  const double total_weight = std::accumulate(weights.begin(), weights.end(), 0.0);
  double cost_s = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i)
    cost_s += weights[i] / total_weight / plan.classes[i].capacity.requests_per_s;
  plan.mix.requests_per_s = 1.0 / cost_s;
  double largest = -1.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const ClassPlan& cp = plan.classes[i];
    const double time_share = weights[i] / total_weight / cp.capacity.requests_per_s / cost_s;
    plan.mix.batch_per_replica += time_share * cp.capacity.batch_per_replica;
    plan.mix.step_s += time_share * cp.capacity.step_s;
    if (time_share > largest) {
      largest = time_share;
      plan.mix.limited_by = cp.capacity.limited_by;
    }
  }
  return plan;
}

}  // namespace fleetcast::simulator
