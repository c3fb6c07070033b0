#include "report_disagg.hpp"

#include <cmath>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/stats/json_number.hpp"
#include "fleetcast/stats/summary.hpp"

namespace fleetcast::simulator::detail {
namespace {

nlohmann::json pool_json(const PoolPlan& p) {
  const auto& d = p.deployment;
  const auto& l = d.replica;
  return {{"nodes", d.nodes},
          {"gpus", d.total_gpus()},
          {"replicas", p.replicas},
          {"replica", {{"tp", l.tp}, {"pp", l.pp}, {"ep", l.ep}, {"dp", l.dp}}},
          {"max_num_seqs", d.scheduler.max_num_seqs},
          {"max_num_batched_tokens", d.scheduler.max_num_batched_tokens},
          {"kv_cache_gb_per_gpu", p.memory.kv_bytes / 1e9},
          {"kv_capacity_tokens_per_replica", p.memory.kv_capacity_tokens}};
}

}  // namespace

nlohmann::json pools_derived_json(const DisaggregatedPlan& pools) {
  return {{"prefill", pool_json(pools.prefill)}, {"decode", pool_json(pools.decode)}};
}

nlohmann::json pools_metrics_json(const ReportInputs& in, double window_s) {
  nlohmann::json out = nlohmann::json::object();
  const auto& totals = in.recorder->pools();
  const PoolPlan* plans[] = {&in.pools->prefill, &in.pools->decode};
  const char* names[] = {"prefill", "decode"};
  for (std::size_t k = 0; k < 2; ++k) {
    const PoolTotals t = k < totals.size() ? totals[k] : PoolTotals{};
    const double gpu_s = plans[k]->deployment.total_gpus() * window_s;
    out[names[k]] = {
        {"gpu_busy_share", t.busy_gpu_s / gpu_s},           {"prefill_busy_share", t.prefill_busy_gpu_s / gpu_s},
        {"decode_busy_share", t.decode_busy_gpu_s / gpu_s}, {"steps_in_run", t.steps},
        {"prefill_tokens_in_run", t.prefill_tokens},        {"decode_tokens_in_run", t.decode_tokens}};
  }
  return out;
}

nlohmann::json kv_transfer_json(const ReportInputs& in) {
  const auto& requests = in.recorder->requests();
  const auto total = static_cast<std::int64_t>(requests.size());
  std::vector<double> seconds;
  double bytes = 0.0;
  for (const Request& r : requests) {
    if (r.arrival_rank < in.warmup_requests || r.arrival_rank >= total - in.cooldown_requests) continue;
    if (r.kv_arrived_s < 0.0) continue;
    seconds.push_back(r.kv_arrived_s - r.kv_sent_s);
    bytes += r.kv_transfer_bytes;
  }
  const auto n = static_cast<double>(seconds.size());
  return {{"transfers", seconds.size()},
          {"bytes_per_gpu_total", bytes},
          {"bytes_per_gpu_mean", stats::number_or_null(n > 0 ? bytes / n : NAN)},
          {"time_ms", stats::to_json(stats::summarize(seconds), 1e3)},
          {"how",
           "One transfer per measured request whose KV reached its decode replica: the prompt's KV bytes one GPU "
           "of the prefill replica holds (its tp shards move in parallel over each GPU's own link), sent as one "
           "SimGrid communication from the prefill replica's first GPU to the decode replica's first GPU, over "
           "NVLink inside a scale-up domain and the NIC fabric across, sharing links with concurrent transfers. "
           "Time runs from the end of the prefill step to the KV's arrival, which is when the first token reaches "
           "the client (TTFT)."}};
}

}  // namespace fleetcast::simulator::detail
