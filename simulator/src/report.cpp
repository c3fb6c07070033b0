#include "fleetcast/simulator/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/cost_model/cost.hpp"
#include "fleetcast/cost_model/fleet_cost.hpp"
#include "fleetcast/cost_model/sensitivity.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/gemm_inputs.hpp"
#include "fleetcast/simulator/speculative.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/stats/json_number.hpp"
#include "fleetcast/stats/summary.hpp"
#include "fleetcast/traces/benchmark_record.hpp"
#include "fleetcast_version.hpp"
#include "report_disagg.hpp"
#include "report_metrics.hpp"

namespace fleetcast::simulator {
namespace {

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

nlohmann::json capacity_json(const CapacityEstimate& c) {
  return {{"requests_per_s", c.requests_per_s},
          {"batch_per_replica", c.batch_per_replica},
          {"step_ms", 1e3 * c.step_s},
          {"limited_by", c.limited_by}};
}

// What the plan made of each class: its rate, its share of the requests and of the fleet's capacity.
nlohmann::json derived_by_class(const specs::WorkloadSpec& w, const WorkloadPlan& plan) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t k = 0; k < w.classes.size(); ++k) {
    const ClassPlan& cp = plan.classes[k];
    const bool closed = w.classes[k].arrival.kind == specs::ArrivalKind::closed_loop;
    out[w.classes[k].name] = {{"arrival_rate_per_s", closed ? nlohmann::json(nullptr) : nlohmann::json(cp.rate_per_s)},
                              {"expected_rate_per_s", cp.expected_rate_per_s},
                              {"estimated_load", cp.load},
                              {"requests", cp.requests},
                              {"capacity_estimate", capacity_json(cp.capacity)}};
  }
  return out;
}

// One class: its length distributions and arrival as they are; several: each named.
void describe_traffic(const specs::WorkloadSpec& w, const WorkloadPlan& plan, traces::BenchmarkRecord& b) {
  nlohmann::json in = nlohmann::json::object(), out = nlohmann::json::object();
  std::string arrival;
  b.concurrency = 0;
  for (std::size_t k = 0; k < w.classes.size(); ++k) {
    const specs::RequestClass& c = w.classes[k];
    in[c.name] = specs::to_json(c.input_tokens);
    out[c.name] = specs::to_json(c.output_tokens);
    const auto& a = c.arrival;
    const std::string rate = rate_text(plan.classes[k].rate_per_s);
    const std::string text = a.kind == specs::ArrivalKind::closed_loop
                                 ? "closed loop, " + std::to_string(a.clients) + " clients"
                                 : std::string(specs::to_string(a.kind)) + " " + rate + " req/s";
    arrival += (arrival.empty() ? "" : "; ") + (w.classes.size() > 1 ? c.name + ": " : std::string()) + text;
    if (a.kind == specs::ArrivalKind::closed_loop) b.concurrency += a.clients;
  }
  const bool one = w.classes.size() == 1;
  b.input_lengths = one ? specs::to_json(w.classes[0].input_tokens).dump() : in.dump();
  b.output_lengths = one ? specs::to_json(w.classes[0].output_tokens).dump() : out.dump();
  b.arrival = arrival;
}

// Measured: tokens produced per decoding sequence per step, over the steps that ended in the window (the cap
// at a request's remaining output included). Analytic: the same without that cap.
nlohmann::json speculative_json(const specs::SpeculativeSpec& spec, const WindowTotals& w) {
  const double n = spec.num_draft_tokens;
  const double measured =
      w.decode_sequence_steps > 0 ? static_cast<double>(w.decode_output_tokens) / w.decode_sequence_steps : NAN;
  nlohmann::json rates = nlohmann::json::array();
  for (int i = 0; i < spec.num_draft_tokens; ++i) rates.push_back(spec.rate(i));
  return {{"method", specs::to_string(spec.method)},
          {"num_draft_tokens", spec.num_draft_tokens},
          {"acceptance_rates", rates},
          {"decode_sequence_steps", w.decode_sequence_steps},
          {"mean_acceptance_length", stats::number_or_null(measured)},
          {"analytic_acceptance_length", analytic_acceptance_length(spec)},
          {"draft_tokens_accepted_share", stats::number_or_null((measured - 1.0) / n)}};
}

}  // namespace

std::string version_string() {
  return std::string("fleetcast ") + FLEETCAST_VERSION + " (" + FLEETCAST_GIT_COMMIT + ")";
}

namespace {

// The scenario's optional owning, fleet and price-list terms (docs/COST.md): the whole fleet's cost, revenue at the
// price list and a +-20% tornado, added to the report's cost block. Disaggregated: each pool's GPU time is charged
// to its own class (prefill pool to input, decode pool to output), idle time included.
void add_fleet_cost(nlohmann::json& cost, const specs::CostSpec& spec, cost_model::ServingWork work,
                    const DisaggregatedPlan* pools) {
  if (pools) {
    work.prefill_busy_gpu_s = pools->prefill.deployment.total_gpus() * work.window_s;
    work.decode_busy_gpu_s = pools->decode.deployment.total_gpus() * work.window_s;
    work.idle_gpu_s = 0.0;
  }
  cost_model::CostInputs in;
  in.rent = {spec.usd_per_gpu_hour, spec.pricing == specs::PricingKind::reserved, spec.reserved_discount};
  if (spec.owned) {
    const specs::OwnedCostSpec& o = *spec.owned;
    in.ownership = cost_model::Ownership::own;
    in.own = {.gpu_purchase_usd = o.gpu_purchase_usd,
              .server_usd_per_gpu = o.server_usd_per_gpu,
              .network_usd_per_port = o.network_usd_per_port,
              .network_ports_per_gpu = o.network_ports_per_gpu,
              .depreciation_years = o.depreciation_years,
              .idle_power_w = o.idle_power_w,
              .peak_power_w = o.peak_power_w,
              .pue = o.pue,
              .usd_per_kwh = o.usd_per_kwh,
              .operations_usd_per_gpu_hour = o.operations_usd_per_gpu_hour};
  }
  if (spec.fleet) {
    in.fleet = {spec.fleet->load_factor, spec.fleet->spare_share, spec.fleet->storage_tb,
                spec.fleet->storage_usd_per_tb_month};
  }
  const cost_model::FleetCost fleet = cost_model::fleet_cost(in, work);
  cost["fleet"] = cost_model::to_json(fleet);
  if (spec.price_list) {
    const cost_model::PriceList prices{spec.price_list->usd_per_m_input, spec.price_list->usd_per_m_output,
                                       spec.price_list->usd_per_m_cache_read};
    cost["revenue"] = cost_model::to_json(cost_model::revenue(fleet, work, in.fleet, prices));
  }
  cost["tornado"] = cost_model::to_json(cost_model::tornado(in, work, 0.2));
}

traces::BenchmarkRecord benchmark_record(const ReportInputs& in, const nlohmann::json& metrics, double window_s) {
  const auto& s = *in.scenario;
  const auto& d = s.deployment;
  const auto& t = metrics["throughput"];
  const auto ms = [&](const char* figure, const char* stat) {
    const auto& v = metrics[figure][stat];
    return v.is_number() ? v.get<double>() : NAN;
  };
  traces::BenchmarkRecord b;
  b.source = "fleetcast-simulation";
  b.checkpoint = s.model.name;
  b.runtime = d.runtime + " (modelled)";
  b.gpu = d.hardware.name;
  b.gpu_count = d.total_gpus();
  b.interconnect = "NVLink " + std::to_string(static_cast<int>(d.hardware.nvlink_gb_per_s)) + " GB/s per GPU, " +
                   std::to_string(static_cast<int>(d.hardware.nic_gbit_per_s)) + " Gb/s NIC per GPU";
  // The experts' GEMM inputs where they differ from the weights' format (gemm_inputs.hpp): they set the rate.
  const specs::Precision inputs = expert_gemm_inputs(s.model.precision);
  const std::string expert_inputs =
      inputs == s.model.precision.experts ? "" : " (" + std::string(specs::to_string(inputs)) + " inputs)";
  b.precision = std::string(specs::to_string(s.model.precision.weights)) + " weights, " +
                std::string(specs::to_string(s.model.precision.experts)) + " experts" + expert_inputs + ", " +
                std::string(specs::to_string(s.model.precision.kv_cache)) + " KV cache";
  // Disaggregated: the decode pool's layout (the pools' own are in derived.pools).
  const specs::ReplicaLayout& layout = in.pools ? in.pools->decode.deployment.replica : d.replica;
  b.tp = layout.tp;
  b.pp = layout.pp;
  b.ep = layout.ep;
  b.dp = layout.dp;
  describe_traffic(s.workload, *in.plan, b);
  b.warm = true;
  b.duration_s = window_s;
  b.success_rate = metrics["success_rate"].is_number() ? metrics["success_rate"].get<double>() : NAN;
  b.total_tokens_per_s = t["total_tokens_per_s"].get<double>();
  b.output_tokens_per_s = t["output_tokens_per_s"].get<double>();
  b.output_tokens_per_s_per_gpu = t["output_tokens_per_s_per_gpu"].get<double>();
  b.tokens_per_s_per_user = ms("tokens_per_s_per_user", "mean");
  b.ttft_mean_ms = ms("ttft_ms", "mean");
  b.ttft_p50_ms = ms("ttft_ms", "p50");
  b.ttft_p95_ms = ms("ttft_ms", "p95");
  b.tpot_mean_ms = ms("tpot_ms", "mean");
  b.e2e_p50_ms = ms("e2e_latency_ms", "p50");
  b.e2e_p95_ms = ms("e2e_latency_ms", "p95");
  return b;
}

}  // namespace

nlohmann::json build_report(const ReportInputs& in) {
  const auto& s = *in.scenario;
  const auto& d = s.deployment;
  const Recorder& rec = *in.recorder;
  const std::vector<detail::RequestMetrics> per_class = detail::collect_request_metrics(in);
  const detail::RequestMetrics& m = per_class.back();
  const double window_s = rec.window_end_s() - rec.window_start_s();
  const int gpus = d.total_gpus();
  const WindowTotals& w = rec.window();

  // Throughput: tokens of the steps that ended inside the window, per second of the window.
  const double input_tps = w.input_tokens / window_s;
  // Of those input tokens, the ones read from the prefix cache rather than computed (what a cache-read price
  // applies to), by the same rule: requests whose first token came inside the window.
  double cached_input_tokens = 0.0;
  for (const Request& r : rec.requests())
    if (r.first_token_s >= 0.0 && rec.in_window(r.first_token_s)) cached_input_tokens += r.prefix_hit_tokens;
  const double output_tps = w.output_tokens / window_s;

  // Little's law inputs from the sampler, not from request timestamps.
  std::vector<double> in_system, kv_share;
  for (const Sample& smp : rec.samples()) {
    if (!rec.in_window(smp.t_s)) continue;
    in_system.push_back(smp.in_system);
    kv_share.push_back(smp.kv_used_share);
  }
  const stats::Summary in_system_summary = stats::summarize(in_system);

  nlohmann::json queue_by_window = nlohmann::json::array();
  for (int i = 0; i < detail::kQueueWindows; ++i) {
    queue_by_window.push_back(stats::number_or_null(
        m.queue_by_window_count[i] > 0 ? 1e3 * m.queue_by_window_sum[i] / m.queue_by_window_count[i] : NAN));
  }

  nlohmann::json metrics = detail::request_figures_json(m, window_s);
  metrics.update({
      {"itl_ms", stats::to_json(rec.token_gaps().summary(), 1e3)},
      {"queue_time_ms_by_arrival_window", queue_by_window},
      {"throughput",
       {{"requests_per_s", m.finished_in_window / window_s},
        {"input_tokens_per_s", input_tps},
        {"cached_input_tokens_per_s", cached_input_tokens / window_s},
        {"output_tokens_per_s", output_tps},
        {"total_tokens_per_s", input_tps + output_tps},
        {"prefill_tokens_computed_per_s", w.prefill_tokens / window_s},
        {"input_tokens_per_s_per_gpu", input_tps / gpus},
        {"output_tokens_per_s_per_gpu", output_tps / gpus},
        {"total_tokens_per_s_per_gpu", (input_tps + output_tps) / gpus}}},
      {"arrival_rate_per_s", (in.recorder->requests().size() - in.warmup_requests - in.cooldown_requests) / window_s},
      {"mean_in_system", stats::number_or_null(in_system_summary.mean)},
      {"kv_cache_used_share", stats::to_json(stats::summarize(kv_share))},
      {"gpu_busy_share", w.busy_gpu_s / (gpus * window_s)},
      {"preemptions", in.preemptions},
      {"kv_cache", detail::kv_cache_json(in)},
      {"steps_in_window", w.steps},
      {"by_class", detail::by_class_json(in, per_class, window_s)},
      {"by_replica", detail::by_replica_json(in)},
  });
  if (d.speculative) metrics["speculative"] = speculative_json(*d.speculative, w);
  metrics["prefix_cache"] = detail::prefix_cache_json(m);
  metrics["prefix_cache"]["enabled"] = d.scheduler.prefix_caching && d.scheduler.policy != specs::SchedulerPolicy::atom;
  metrics["prefix_cache"]["evicted_blocks"] = in.prefix_evicted_blocks;
  if (in.pools) {
    metrics["pools"] = detail::pools_metrics_json(in, window_s);
    metrics["kv_transfer"] = detail::kv_transfer_json(in);
  }

  const cost_model::RentalPrice price{s.cost.usd_per_gpu_hour, s.cost.pricing == specs::PricingKind::reserved,
                                      s.cost.reserved_discount};
  const cost_model::ServingWork work{gpus,
                                     window_s,
                                     w.input_tokens,
                                     w.output_tokens,
                                     w.prefill_busy_gpu_s,
                                     w.decode_busy_gpu_s,
                                     std::max(0.0, gpus * window_s - w.busy_gpu_s),
                                     cached_input_tokens};
  const auto cost = cost_model::token_cost(price, work);
  nlohmann::json cost_json = cost_model::to_json(cost);
  if (s.cost.owned || s.cost.fleet || s.cost.price_list) add_fleet_cost(cost_json, s.cost, work, in.pools);
  const traces::BenchmarkRecord b = benchmark_record(in, metrics, window_s);

  const ParameterCounts params = count_parameters(s.model);
  nlohmann::json report = {
      {"schema", "fleetcast.report/1"},
      {"simulator", version_string()},
      {"scenario", s.resolved},
      {"derived",
       {{"replicas", specs::serving_replicas(d)},
        {"gpus", gpus},
        {"arrival_rate_per_s", in.plan->open_rate_per_s},
        {"capacity_estimate", capacity_json(in.plan->mix)},
        {"estimated_load", in.plan->load},
        {"by_class", derived_by_class(s.workload, *in.plan)},
        {"parameters", {{"total", params.total()}, {"active_per_token", params.active_per_token()}}},
        {"memory", memory_json(*in.memory)},
        {"profile", calibration::to_json(*in.profile)},
        // Its figures outside the kernel-level ones (kernel_caveats.hpp): a fit's stand-ins, which a workload far
        // from the rows it was fitted to may not share.
        {"profile_kernel_caveats", calibration::to_json(calibration::kernel_caveats(
                                       *in.profile, calibration::datasheet_profile_for(d.hardware, d.runtime)))},
        // How wrong this very profile was on measured runs it was not fitted to (measured_accuracy.hpp); null
        // where none are on record (a GPU without measured runs, a user's own profile, a refit not yet validated).
        {"profile_measured_error", calibration::measured_error_json(*in.profile, d.runtime, s.model)},
        // For a model outside the runs that fit was made on: how wrong its recipe was on each model it was refitted
        // without (unseen_model_accuracy.hpp); null for a model the fit saw, or a profile that is not a shipped fit.
        {"profile_unseen_model_error", calibration::unseen_model_error_json(*in.profile, d.runtime, s.model)},
        // On a GPU without a fit (GB200, GB300): how wrong that same pick was on the GPUs with measured runs, each
        // given it instead of its own fit (unfitted_gpu_accuracy.hpp); null for any other profile.
        {"profile_unfitted_gpu_error",
         calibration::unfitted_gpu_error_json(d.hardware, *in.profile, d.runtime, s.model)}}},
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
         "steps that ended inside it, and ITL the gaps that ended inside it. Goodput counts the successful "
         "requests that finished inside the window within every SLO of their class (TTFT <= ttft_ms, TPOT <= "
         "tpot_ms; an objective not set is not checked), per second of the window; slo_attainment is the share of "
         "measured requests within their SLOs. by_replica counts every request of the run."}}},
      {"metrics", metrics},
      {"cost", cost_json},
      {"benchmark_record", traces::to_json(b)},
  };
  if (in.pools) report["derived"]["pools"] = detail::pools_derived_json(*in.pools);
  return report;
}

}  // namespace fleetcast::simulator
