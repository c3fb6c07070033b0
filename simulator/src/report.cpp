#include "fleetcast/simulator/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fleetcast/cost_model/cost.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/speculative.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/stats/summary.hpp"
#include "fleetcast/traces/benchmark_record.hpp"
#include "fleetcast_version.hpp"

namespace fleetcast::simulator {
namespace {

constexpr int kQueueWindows = 5;

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

struct RequestMetrics {
  std::vector<double> ttft_s, tpot_s, e2e_s, queue_s, user_tokens_per_s;
  std::int64_t measured = 0, succeeded = 0, preempted = 0;
  std::vector<double> queue_by_window_sum = std::vector<double>(kQueueWindows, 0.0);
  std::vector<double> queue_by_window_count = std::vector<double>(kQueueWindows, 0.0);
};

RequestMetrics collect(const ReportInputs& in) {
  RequestMetrics m;
  const auto& requests = in.recorder->requests();
  const std::int64_t first = in.warmup_requests;
  const std::int64_t last = static_cast<std::int64_t>(requests.size()) - in.cooldown_requests;  // exclusive
  const double span = static_cast<double>(std::max<std::int64_t>(1, last - first));
  for (const Request& r : requests) {
    if (r.arrival_rank < first || r.arrival_rank >= last) continue;
    ++m.measured;
    if (r.failed || r.finish_s < 0.0) continue;
    ++m.succeeded;
    if (r.preemptions > 0) ++m.preempted;
    m.ttft_s.push_back(r.first_token_s - r.arrival_s);
    m.e2e_s.push_back(r.finish_s - r.arrival_s);
    const double queue = r.scheduled_s - r.arrival_s;
    m.queue_s.push_back(queue);
    const int w = std::min(kQueueWindows - 1, static_cast<int>((r.arrival_rank - first) * kQueueWindows / span));
    m.queue_by_window_sum[w] += queue;
    m.queue_by_window_count[w] += 1.0;
    if (r.output_tokens > 1) {
      const double tpot = (r.finish_s - r.first_token_s) / (r.output_tokens - 1);
      m.tpot_s.push_back(tpot);
      if (tpot > 0.0) m.user_tokens_per_s.push_back(1.0 / tpot);
    }
  }
  return m;
}

nlohmann::json memory_json(const MemoryPlan& m) {
  return {{"hbm_gb_per_gpu", m.hbm_bytes / 1e9},
          {"budget_gb_per_gpu", m.budget_bytes / 1e9},
          {"weights_gb_per_gpu", m.weight_bytes / 1e9},
          {"activations_gb_per_gpu", m.activation_bytes / 1e9},
          {"runtime_reserve_gb_per_gpu", m.runtime_reserve_bytes / 1e9},
          {"kv_cache_gb_per_gpu", m.kv_bytes / 1e9},
          {"kv_bytes_per_token_per_gpu", m.kv_bytes_per_token},
          {"kv_capacity_tokens_per_replica", m.kv_capacity_tokens}};
}

std::string rate_text(double rate_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", rate_per_s);
  return buf;
}

std::string describe_lengths(const specs::LengthDistribution& d) { return specs::to_json(d).dump(); }

// Measured: tokens produced per decoding sequence per step, over the steps that ended in the window (the cap
// at a request's remaining output included). Analytic: the same without that cap.
nlohmann::json speculative_json(const specs::SpeculativeSpec& spec, const WindowTotals& w) {
  const double n = spec.num_draft_tokens;
  const double measured = w.decode_sequence_steps > 0
                              ? static_cast<double>(w.decode_output_tokens) / w.decode_sequence_steps
                              : NAN;
  nlohmann::json rates = nlohmann::json::array();
  for (int i = 0; i < spec.num_draft_tokens; ++i) rates.push_back(spec.rate(i));
  return {{"method", specs::to_string(spec.method)},
          {"num_draft_tokens", spec.num_draft_tokens},
          {"acceptance_rates", rates},
          {"decode_sequence_steps", w.decode_sequence_steps},
          {"mean_acceptance_length", number(measured)},
          {"analytic_acceptance_length", analytic_acceptance_length(spec)},
          {"draft_tokens_accepted_share", number((measured - 1.0) / n)}};
}

}  // namespace

std::string version_string() {
  return std::string("fleetcast ") + FLEETCAST_VERSION + " (" + FLEETCAST_GIT_COMMIT + ")";
}

nlohmann::json build_report(const ReportInputs& in) {
  const auto& s = *in.scenario;
  const auto& d = s.deployment;
  const Recorder& rec = *in.recorder;
  const RequestMetrics m = collect(in);
  const double window_s = rec.window_end_s() - rec.window_start_s();
  const int gpus = d.total_gpus();
  const WindowTotals& w = rec.window();

  // Throughput: tokens of the steps that ended inside the window, per second of the window.
  const double input_tps = w.input_tokens / window_s;
  const double output_tps = w.output_tokens / window_s;
  std::int64_t finished_in_window = 0;
  for (const Request& r : rec.requests()) finished_in_window += (!r.failed && rec.in_window(r.finish_s)) ? 1 : 0;

  // Little's law inputs from the sampler, not from request timestamps.
  std::vector<double> in_system, kv_share;
  for (const Sample& smp : rec.samples()) {
    if (!rec.in_window(smp.t_s)) continue;
    in_system.push_back(smp.in_system);
    kv_share.push_back(smp.kv_used_share);
  }
  const stats::Summary in_system_summary = stats::summarize(in_system);

  nlohmann::json queue_by_window = nlohmann::json::array();
  for (int i = 0; i < kQueueWindows; ++i) {
    queue_by_window.push_back(
        number(m.queue_by_window_count[i] > 0 ? 1e3 * m.queue_by_window_sum[i] / m.queue_by_window_count[i] : NAN));
  }

  const stats::Summary ttft = stats::summarize(m.ttft_s), tpot = stats::summarize(m.tpot_s),
                       e2e = stats::summarize(m.e2e_s), user = stats::summarize(m.user_tokens_per_s);
  nlohmann::json metrics = {
      {"requests_measured", m.measured},
      {"requests_succeeded", m.succeeded},
      {"success_rate", number(m.measured > 0 ? static_cast<double>(m.succeeded) / m.measured : NAN)},
      {"ttft_ms", stats::to_json(ttft, 1e3)},
      {"tpot_ms", stats::to_json(tpot, 1e3)},
      {"itl_ms", stats::to_json(rec.token_gaps().summary(), 1e3)},
      {"e2e_latency_ms", stats::to_json(e2e, 1e3)},
      {"queue_time_ms", stats::to_json(stats::summarize(m.queue_s), 1e3)},
      {"queue_time_ms_by_arrival_window", queue_by_window},
      {"tokens_per_s_per_user", stats::to_json(user)},
      {"throughput",
       {{"requests_per_s", finished_in_window / window_s},
        {"input_tokens_per_s", input_tps},
        {"output_tokens_per_s", output_tps},
        {"total_tokens_per_s", input_tps + output_tps},
        {"prefill_tokens_computed_per_s", w.prefill_tokens / window_s},
        {"input_tokens_per_s_per_gpu", input_tps / gpus},
        {"output_tokens_per_s_per_gpu", output_tps / gpus},
        {"total_tokens_per_s_per_gpu", (input_tps + output_tps) / gpus}}},
      {"arrival_rate_per_s", (in.recorder->requests().size() - in.warmup_requests - in.cooldown_requests) / window_s},
      {"mean_in_system", number(in_system_summary.mean)},
      {"kv_cache_used_share", stats::to_json(stats::summarize(kv_share))},
      {"gpu_busy_share", w.busy_gpu_s / (gpus * window_s)},
      {"preemptions", in.preemptions},
      {"requests_preempted", m.preempted},
      {"steps_in_window", w.steps},
  };
  if (d.speculative) metrics["speculative"] = speculative_json(*d.speculative, w);

  const cost_model::RentalPrice price{s.cost.usd_per_gpu_hour, s.cost.pricing == specs::PricingKind::reserved,
                                      s.cost.reserved_discount};
  const cost_model::ServingWork work{gpus,
                                     window_s,
                                     w.input_tokens,
                                     w.output_tokens,
                                     w.prefill_busy_gpu_s,
                                     w.decode_busy_gpu_s,
                                     std::max(0.0, gpus * window_s - w.busy_gpu_s)};
  const auto cost = cost_model::token_cost(price, work);

  traces::BenchmarkRecord b;
  b.source = "fleetcast-simulation";
  b.checkpoint = s.model.name;
  b.runtime = d.runtime + " (modelled)";
  b.gpu = d.hardware.name;
  b.gpu_count = gpus;
  b.interconnect = "NVLink " + std::to_string(static_cast<int>(d.hardware.nvlink_gb_per_s)) + " GB/s per GPU, " +
                   std::to_string(static_cast<int>(d.hardware.nic_gbit_per_s)) + " Gb/s NIC per GPU";
  b.precision = std::string(specs::to_string(s.model.precision.weights)) + " weights, " +
                std::string(specs::to_string(s.model.precision.experts)) + " experts, " +
                std::string(specs::to_string(s.model.precision.kv_cache)) + " KV cache";
  b.tp = d.replica.tp;
  b.pp = d.replica.pp;
  b.ep = d.replica.ep;
  b.input_lengths = describe_lengths(s.workload.input_tokens);
  b.output_lengths = describe_lengths(s.workload.output_tokens);
  const auto& a = s.workload.arrival;
  b.arrival = a.kind == specs::ArrivalKind::closed_loop
                  ? "closed loop, " + std::to_string(a.clients) + " clients"
                  : std::string(specs::to_string(a.kind)) + " " + rate_text(in.rate_per_s) + " req/s";
  b.concurrency = a.kind == specs::ArrivalKind::closed_loop ? a.clients : 0;
  b.warm = true;
  b.duration_s = window_s;
  b.success_rate = m.measured > 0 ? static_cast<double>(m.succeeded) / m.measured : NAN;
  b.total_tokens_per_s = input_tps + output_tps;
  b.output_tokens_per_s = output_tps;
  b.output_tokens_per_s_per_gpu = output_tps / gpus;
  b.tokens_per_s_per_user = user.mean;
  b.ttft_mean_ms = 1e3 * ttft.mean;
  b.ttft_p50_ms = 1e3 * ttft.p50;
  b.ttft_p95_ms = 1e3 * ttft.p95;
  b.tpot_mean_ms = 1e3 * tpot.mean;
  b.e2e_p50_ms = 1e3 * e2e.p50;
  b.e2e_p95_ms = 1e3 * e2e.p95;

  const ParameterCounts params = count_parameters(s.model);
  nlohmann::json report = {
      {"schema", "fleetcast.report/1"},
      {"simulator", version_string()},
      {"scenario", s.resolved},
      {"derived",
       {{"replicas", d.num_replicas()},
        {"gpus", gpus},
        {"arrival_rate_per_s", in.rate_per_s},
        {"capacity_estimate",
         {{"requests_per_s", in.capacity->requests_per_s},
          {"batch_per_replica", in.capacity->batch_per_replica},
          {"step_ms", 1e3 * in.capacity->step_s},
          {"limited_by", in.capacity->limited_by}}},
        {"parameters", {{"total", params.total()}, {"active_per_token", params.active_per_token()}}},
        {"memory", memory_json(*in.memory)},
        {"profile", calibration::to_json(*in.profile)}}},
      {"measurement",
       {{"window_start_s", rec.window_start_s()},
        {"window_end_s", rec.window_end_s()},
        {"window_s", window_s},
        {"warmup_requests", in.warmup_requests},
        {"cooldown_requests", in.cooldown_requests},
        {"total_steps", rec.total_steps()},
        {"how",
         "Requests are ranked by arrival. The first warmup_requests and the last cooldown_requests are simulated "
         "but not measured; latency figures cover the requests in between. The window runs from the arrival of "
         "the first measured request to the arrival of the first cool-down request; throughput counts tokens of "
         "steps that ended inside it, and ITL the gaps that ended inside it."}}},
      {"metrics", metrics},
      {"cost", cost_model::to_json(cost)},
      {"benchmark_record", traces::to_json(b)},
  };
  return report;
}

}  // namespace fleetcast::simulator
