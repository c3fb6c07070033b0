#include "report_timeline.hpp"

#include <vector>

namespace fleetcast::simulator::detail {

nlohmann::json timeline_json(const Recorder& recorder, int replicas, double sample_interval_s) {
  const auto& samples = recorder.samples();
  const auto& tokens = recorder.sample_tokens();
  const auto n_replicas = static_cast<std::size_t>(replicas);
  std::vector<double> t, kv, input_tps, output_tps, prefill_tps;
  std::vector<int> in_system, waiting, running;
  std::vector<std::vector<double>> kv_by_replica(n_replicas);
  // Entry i covers (t[i-1], t[i]], the first one (0, t[0]]; an empty interval has no tokens.
  double prev_t = 0.0;
  TokenTotals prev;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    t.push_back(s.t_s);
    in_system.push_back(s.in_system);
    waiting.push_back(s.waiting);
    running.push_back(s.running);
    kv.push_back(s.kv_used_share);
    for (std::size_t r = 0; r < n_replicas; ++r)
      kv_by_replica[r].push_back(r < s.replica_kv_used_share.size() ? s.replica_kv_used_share[r] : 0.0);
    const double dt = s.t_s - prev_t;
    const TokenTotals& now = tokens[i];
    input_tps.push_back(dt > 0.0 ? (now.input_tokens - prev.input_tokens) / dt : 0.0);
    output_tps.push_back(dt > 0.0 ? (now.output_tokens - prev.output_tokens) / dt : 0.0);
    prefill_tps.push_back(dt > 0.0 ? (now.prefill_tokens - prev.prefill_tokens) / dt : 0.0);
    prev_t = s.t_s;
    prev = now;
  }
  return {{"sample_interval_s", sample_interval_s},
          {"how",
           "One entry per sample, taken every sample_interval_s of simulated time from 0 and once more when the "
           "run ends. in_system: arrived and not finished; waiting: queued in replicas; running: in a replica's "
           "running batch; kv_used_share: KV bytes used / capacity, overall and by replica. The tokens per "
           "second of entry i are those of the steps that ended in (t_s[i-1], t_s[i]] (the first entry: (0, "
           "t_s[0]]), counted as the report counts them: input tokens of requests whose first token came, output "
           "tokens, prompt tokens computed."},
          {"t_s", t},
          {"in_system", in_system},
          {"waiting", waiting},
          {"running", running},
          {"kv_used_share", kv},
          {"kv_used_share_by_replica", kv_by_replica},
          {"input_tokens_per_s", input_tps},
          {"output_tokens_per_s", output_tps},
          {"prefill_tokens_computed_per_s", prefill_tps}};
}

}  // namespace fleetcast::simulator::detail
