#include "report_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "fleetcast/stats/json_number.hpp"
#include "fleetcast/stats/summary.hpp"

namespace fleetcast::simulator::detail {
namespace {

double ratio(std::int64_t a, std::int64_t b) { return b > 0 ? static_cast<double>(a) / b : NAN; }

void add_request(RequestMetrics& m, const Request& r, bool good, int window) {
  ++m.measured;
  if (r.failed || r.finish_s < 0.0) return;
  ++m.succeeded;
  m.met_slo += good ? 1 : 0;
  if (r.preemptions > 0) ++m.preempted;
  m.ttft_s.push_back(r.first_token_s - r.arrival_s);
  m.prompt_tokens += r.input_tokens;
  m.hit_tokens += r.prefix_hit_tokens;
  m.requests_hit += r.prefix_hit_tokens > 0 ? 1 : 0;
  (r.prefix_hit_tokens > 0 ? m.ttft_hit_s : m.ttft_miss_s).push_back(r.first_token_s - r.arrival_s);
  m.e2e_s.push_back(r.finish_s - r.arrival_s);
  const double queue = r.scheduled_s - r.arrival_s;
  m.queue_s.push_back(queue);
  m.queue_by_window_sum[window] += queue;
  m.queue_by_window_count[window] += 1.0;
  if (r.output_tokens > 1) {
    const double tpot = (r.finish_s - r.first_token_s) / (r.output_tokens - 1);
    m.tpot_s.push_back(tpot);
    if (tpot > 0.0) m.user_tokens_per_s.push_back(1.0 / tpot);
  }
}

}  // namespace

bool meets_slo(const Request& r, const specs::SloSpec& slo) {
  if (r.failed || r.finish_s < 0.0) return false;
  if (slo.ttft_ms > 0.0 && 1e3 * (r.first_token_s - r.arrival_s) > slo.ttft_ms) return false;
  if (slo.tpot_ms > 0.0 && r.output_tokens > 1 &&
      1e3 * (r.finish_s - r.first_token_s) / (r.output_tokens - 1) > slo.tpot_ms)
    return false;
  return true;
}

std::vector<RequestMetrics> collect_request_metrics(const ReportInputs& in) {
  const auto& classes = in.scenario->workload.classes;
  std::vector<RequestMetrics> out(classes.size() + 1);
  RequestMetrics& all = out.back();
  const Recorder& rec = *in.recorder;
  const auto& requests = rec.requests();
  const std::int64_t first = in.warmup_requests;
  const std::int64_t last = static_cast<std::int64_t>(requests.size()) - in.cooldown_requests;  // exclusive
  const double span = static_cast<double>(std::max<std::int64_t>(1, last - first));
  for (const Request& r : requests) {
    RequestMetrics& own = out[static_cast<std::size_t>(r.class_index)];
    const bool good = meets_slo(r, classes[static_cast<std::size_t>(r.class_index)].slo);
    if (!r.failed && rec.in_window(r.finish_s)) {
      for (RequestMetrics* m : {&own, &all}) {
        ++m->finished_in_window;
        m->good_in_window += good ? 1 : 0;
      }
    }
    if (r.arrival_rank < first || r.arrival_rank >= last) continue;
    const int w = std::min(kQueueWindows - 1, static_cast<int>((r.arrival_rank - first) * kQueueWindows / span));
    add_request(own, r, good, w);
    add_request(all, r, good, w);
  }
  return out;
}

nlohmann::json request_figures_json(const RequestMetrics& m, double window_s) {
  return {{"requests_measured", m.measured},
          {"requests_succeeded", m.succeeded},
          {"requests_preempted", m.preempted},
          {"success_rate", stats::number_or_null(ratio(m.succeeded, m.measured))},
          {"ttft_ms", stats::to_json(stats::summarize(m.ttft_s), 1e3)},
          {"tpot_ms", stats::to_json(stats::summarize(m.tpot_s), 1e3)},
          {"e2e_latency_ms", stats::to_json(stats::summarize(m.e2e_s), 1e3)},
          {"queue_time_ms", stats::to_json(stats::summarize(m.queue_s), 1e3)},
          {"tokens_per_s_per_user", stats::to_json(stats::summarize(m.user_tokens_per_s))},
          {"slo_attainment", stats::number_or_null(ratio(m.met_slo, m.measured))},
          {"goodput_requests_per_s", m.good_in_window / window_s}};
}

nlohmann::json prefix_cache_json(const RequestMetrics& m) {
  return {{"prompt_tokens", m.prompt_tokens},
          {"hit_tokens", m.hit_tokens},
          {"hit_rate", stats::number_or_null(ratio(m.hit_tokens, m.prompt_tokens))},
          {"requests_with_hit", m.requests_hit},
          {"ttft_ms_cache_hit", stats::to_json(stats::summarize(m.ttft_hit_s), 1e3)},
          {"ttft_ms_cache_miss", stats::to_json(stats::summarize(m.ttft_miss_s), 1e3)}};
}

nlohmann::json by_class_json(const ReportInputs& in, const std::vector<RequestMetrics>& per_class, double window_s) {
  nlohmann::json out = nlohmann::json::object();
  const auto& classes = in.scenario->workload.classes;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    const RequestMetrics& m = per_class[k];
    const ClassTokens& tokens = in.recorder->class_tokens()[k];
    const specs::SloSpec& slo = classes[k].slo;
    nlohmann::json j = request_figures_json(m, window_s);
    j["slo"] = {{"ttft_ms", slo.ttft_ms > 0.0 ? nlohmann::json(slo.ttft_ms) : nlohmann::json(nullptr)},
                {"tpot_ms", slo.tpot_ms > 0.0 ? nlohmann::json(slo.tpot_ms) : nlohmann::json(nullptr)}};
    j["arrival_rate_per_s"] = m.measured / window_s;
    j["prefix_cache"] = prefix_cache_json(m);
    j["throughput"] = {{"requests_per_s", m.finished_in_window / window_s},
                       {"input_tokens_per_s", tokens.input_tokens / window_s},
                       {"output_tokens_per_s", tokens.output_tokens / window_s},
                       {"total_tokens_per_s", (tokens.input_tokens + tokens.output_tokens) / window_s}};
    out[classes[k].name] = j;
  }
  return out;
}

nlohmann::json by_replica_json(const ReportInputs& in) {
  const Recorder& rec = *in.recorder;
  const auto replicas = static_cast<std::size_t>(specs::serving_replicas(in.scenario->deployment));
  std::vector<std::int64_t> requests(replicas, 0), input(replicas, 0), output(replicas, 0);
  std::vector<double> kv_sum(replicas, 0.0);
  for (const Request& r : rec.requests()) {
    if (r.replica < 0) continue;
    const auto i = static_cast<std::size_t>(r.replica);
    ++requests[i];
    input[i] += r.input_tokens;
    output[i] += r.generated;
  }
  double samples = 0.0;
  for (const Sample& s : rec.samples()) {
    if (!rec.in_window(s.t_s)) continue;
    samples += 1.0;
    for (std::size_t i = 0; i < replicas && i < s.replica_kv_used_share.size(); ++i)
      kv_sum[i] += s.replica_kv_used_share[i];
  }
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < replicas; ++i) {
    out.push_back({{"requests", requests[i]},
                   {"input_tokens", input[i]},
                   {"output_tokens", output[i]},
                   {"kv_cache_used_share_mean", stats::number_or_null(samples > 0.0 ? kv_sum[i] / samples : NAN)}});
  }
  return out;
}

}  // namespace fleetcast::simulator::detail
