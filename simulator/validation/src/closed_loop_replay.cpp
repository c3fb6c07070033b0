#include "fleetcast/validation/closed_loop_replay.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/dp_router.hpp"
#include "fleetcast/simulator/dp_step_former.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/request_generator.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::validation {

using simulator::Batcher;
using simulator::BatchShape;
using simulator::Request;

ReplayMeans replay_closed_loop(const specs::ScenarioSpec& s, const calibration::Profile& profile) {
  const specs::DeploymentSpec& d = s.deployment;
  if (d.disaggregation || d.num_replicas() != 1 || s.workload.classes.size() != 1 ||
      s.workload.classes[0].arrival.kind != specs::ArrivalKind::closed_loop ||
      s.workload.classes[0].arrival.start != specs::ArrivalStart::together || d.speculative) {
    throw InputError(s.name, "scenario", "",
                     "the fast replay takes one aggregated replica, one closed-loop class started together, no "
                     "drafts");
  }
  const specs::RequestClass& c = s.workload.classes[0];
  const simulator::MemoryPlan memory = simulator::plan_memory(s.model, d);
  simulator::require_fits(memory, s.model, d, s.name);
  const simulator::StepTimeModel model(s.model, d, profile);

  simulator::KvBudget kv;
  kv.capacity_bytes = memory.kv_bytes;
  kv.bytes_for_tokens = [&](double tokens) { return simulator::kv_bytes_per_gpu(s.model, d, tokens); };
  const int dp = d.replica.dp;
  std::vector<Batcher> ranks;
  ranks.reserve(static_cast<std::size_t>(dp));
  for (int k = 0; k < dp; ++k) ranks.emplace_back(d.scheduler, kv, std::nullopt, s.workload.prefix_block_tokens);

  // The simulation's own draws (same seed and streams), so that the replay and the simulation serve the same
  // lengths in the same order.
  const auto total = static_cast<std::size_t>(s.num_requests);
  std::vector<Request> requests = simulator::generate_class_requests(
      c, 0, s.num_requests, 0.0, s.seed, s.model.max_context_tokens, s.workload.prefix_block_tokens);
  // Requests on their way to the engine, in the order sent: when each was sent, when it reaches the engine (the
  // profile's front-end time later) and which it is. Client k sends requests k, k + C, k + 2C, ... as the
  // simulation's client actors do. Completions come in time order, so the queue stays sorted.
  struct OnTheWay {
    double sent_s, arrives_s;
    std::size_t index;
  };
  std::deque<OnTheWay> on_the_way;
  const double front_end_s = profile.request_overhead_s;
  const auto clients = static_cast<std::size_t>(std::min<std::int64_t>(c.arrival.clients, s.num_requests));
  for (std::size_t i = 0; i < clients; ++i) on_the_way.push_back({0.0, front_end_s, i});  // every client at 0
  std::size_t joined = 0;
  double now = 0.0;
  // The simulation's replica 0 routes with the same stream, so both place the same requests on the same ranks.
  simulator::DpRouter router(d.scheduler, dp, s.model.moe.has_value(), s.seed, simulator::kDpRouterStreamBase);
  auto join = [&]() {
    Request& r = requests[on_the_way.front().index];
    r.arrival_s = on_the_way.front().sent_s;
    r.arrival_rank = static_cast<std::int64_t>(joined++);
    on_the_way.pop_front();
    if (!ranks[router.route(ranks, now)].add(&r)) r.failed = true;
  };

  std::vector<BatchShape> batches(static_cast<std::size_t>(dp));
  simulator::DpStepFormer step_former(d.scheduler, dp);
  for (;;) {
    bool work = false, empty = true;
    for (auto& b : ranks) work = work || b.has_work();
    if (!work) {
      // An idle replica waits for the next request and starts a step with it at once; the others, microseconds
      // behind it in the simulation, join the step after.
      if (on_the_way.empty()) break;
      now = std::max(now, on_the_way.front().arrives_s);
      join();
    }
    // A busy replica starts its next step as soon as the last one ends, with what reached it before; requests
    // of clients whose last one finished with that step are still crossing the router (microseconds in the
    // simulation) and wait for the step after.
    while (!on_the_way.empty() && on_the_way.front().arrives_s < now) join();
    router.report(ranks, now);
    step_former.form(ranks, batches, now);
    for (const BatchShape& batch : batches) empty = empty && batch.empty();
    if (empty) throw InputError(s.name, "scenario", "", "no step can be formed: the KV cache holds no request");
    now += model.predict_ranks(batches).total_s;
    for (auto& b : ranks) {
      for (const Request* done : b.complete(now).finished) {
        const auto next = static_cast<std::size_t>(done->id) + clients;  // the client sends its next one at once
        if (next < total) on_the_way.push_back({now, now + front_end_s, next});
      }
    }
    router.report(ranks, now);
  }

  const auto warmup = static_cast<std::int64_t>(std::floor(s.measurement.warmup_fraction * s.num_requests));
  const auto cooldown = static_cast<std::int64_t>(std::floor(s.measurement.cooldown_fraction * s.num_requests));
  ReplayMeans m;
  double ttft = 0.0, tpot = 0.0;
  long tpot_count = 0;
  for (const Request& r : requests) {
    if (r.failed || r.arrival_rank < warmup || r.arrival_rank >= s.num_requests - cooldown) continue;
    ++m.measured;
    ttft += r.first_token_s - r.arrival_s;
    if (r.output_tokens > 1) {
      tpot += (r.finish_s - r.first_token_s) / (r.output_tokens - 1);
      ++tpot_count;
    }
  }
  if (m.measured > 0) {
    m.ttft_ms = 1e3 * ttft / static_cast<double>(m.measured);
    m.tpot_ms = tpot_count > 0 ? 1e3 * tpot / static_cast<double>(tpot_count) : 0.0;
  }
  return m;
}

}  // namespace fleetcast::validation
