#include "fleetcast/validation/closed_loop_replay.hpp"

#include <cmath>
#include <vector>

#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/memory_model.hpp"
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
      s.workload.classes[0].input_tokens.kind != specs::LengthKind::fixed ||
      s.workload.classes[0].output_tokens.kind != specs::LengthKind::fixed || d.speculative) {
    throw InputError(s.name, "scenario", "",
                     "the fast replay takes one aggregated replica, one closed-loop class, fixed lengths, no drafts");
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

  const auto total = static_cast<std::size_t>(s.num_requests);
  std::vector<Request> requests(total);
  for (std::size_t i = 0; i < total; ++i) {
    requests[i].id = static_cast<std::int64_t>(i);
    requests[i].input_tokens = c.input_tokens.value;
    requests[i].output_tokens = c.output_tokens.value;
  }
  std::size_t sent = 0;
  std::int64_t arrival_rank = 0;
  int next_rank = 0;
  auto send = [&](double now) {
    if (sent >= total) return;
    Request& r = requests[sent++];
    r.arrival_s = now;
    r.arrival_rank = arrival_rank++;
    if (!ranks[static_cast<std::size_t>(next_rank)].add(&r)) r.failed = true;
    next_rank = (next_rank + 1) % dp;
  };
  // Every client sends its first request at 0.
  std::size_t pending = static_cast<std::size_t>(std::min<std::int64_t>(c.arrival.clients, s.num_requests));

  std::vector<BatchShape> batches(static_cast<std::size_t>(dp));
  double now = 0.0;
  // `pending`: requests sent whose messages are on their way: clients' first ones, then the next requests of
  // clients whose last one finished with the last step.
  for (;;) {
    bool work = false, empty = true;
    for (auto& b : ranks) work = work || b.has_work();
    if (!work) {
      // An idle replica waits for the next arrival and starts a step with it at once; the others, microseconds
      // behind it in the simulation, join the step after.
      if (pending == 0 || sent >= total) break;
      send(now);
      --pending;
    }
    for (int k = 0; k < dp; ++k) {
      batches[static_cast<std::size_t>(k)] = ranks[static_cast<std::size_t>(k)].schedule(now);
      empty = empty && batches[static_cast<std::size_t>(k)].empty();
    }
    if (empty) throw InputError(s.name, "scenario", "", "no step can be formed: the KV cache holds no request");
    // A busy replica starts its next step as soon as the last one ends; the clients' next requests cross the
    // router while it runs and wait for the step after (in the simulation they arrive microseconds later).
    for (; pending > 0; --pending) send(now);
    now += model.predict_ranks(batches).total_s;
    for (auto& b : ranks) pending += b.complete(now).finished.size();
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
