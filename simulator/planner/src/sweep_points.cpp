#include "fleetcast/planner/sweep_points.hpp"

#include <cmath>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/planner/grid.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/steady_state.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/traces/benchmark_record.hpp"

namespace fleetcast::planner {
namespace {

// The record fields a steady-state point shares with a simulated one: what ran, on what, laid out how.
traces::BenchmarkRecord steady_record(const specs::ScenarioSpec& s, const specs::DeploymentSpec& d) {
  traces::BenchmarkRecord b;
  b.source = "fleetcast-step-model (steady state)";
  b.checkpoint = s.model.name;
  b.runtime = d.runtime + " (modelled)";
  b.gpu = d.hardware.name;
  b.gpu_count = d.replica.gpus();  // one replica: the figures are per step of one replica
  b.interconnect = "NVLink " + std::to_string(static_cast<int>(d.hardware.nvlink_gb_per_s)) + " GB/s per GPU, " +
                   std::to_string(static_cast<int>(d.hardware.nic_gbit_per_s)) + " Gb/s NIC per GPU";
  b.precision = std::string(specs::to_string(s.model.precision.weights)) + " weights, " +
                std::string(specs::to_string(s.model.precision.experts)) + " experts, " +
                std::string(specs::to_string(s.model.precision.kv_cache)) + " KV cache";
  b.tp = d.replica.tp;
  b.pp = d.replica.pp;
  b.ep = d.replica.ep;
  b.dp = d.replica.dp;
  b.warm = true;
  b.duration_s = NAN;  // no measurement window: one repeated step
  b.success_rate = 1.0;
  b.ttft_mean_ms = b.ttft_p50_ms = b.ttft_p95_ms = NAN;
  b.tpot_mean_ms = NAN;
  b.e2e_p50_ms = b.e2e_p95_ms = NAN;
  b.tokens_per_s_per_user = NAN;
  return b;
}

specs::DeploymentSpec pool_or_whole(const specs::DeploymentSpec& d, specs::Pool pool) {
  return d.disaggregation ? specs::pool_deployment(d, pool) : d;
}

// The point's profile figures outside the kernel-level ones, as a report carries them (kernel_caveats.hpp).
nlohmann::json caveats_json(const specs::DeploymentSpec& d, const calibration::Profile& profile) {
  return calibration::to_json(
      calibration::kernel_caveats(profile, calibration::datasheet_profile_for(d.hardware, d.runtime)));
}

}  // namespace

nlohmann::json grid_point(const nlohmann::json& scenario_json, const nlohmann::json& parameters,
                          const std::string& file, const std::filesystem::path& base_dir) {
  const specs::ScenarioSpec s =
      specs::parse_scenario(apply_parameters(scenario_json, parameters, file), file, base_dir);
  // This runs in a worker process of its own: the one SimGrid simulation it will ever hold.
  simulator::RunOptions options;
  options.file = file;
  const nlohmann::json report = simulator::simulate(s, options);
  return {{"benchmark_record", report.at("benchmark_record")},
          {"cost", report.at("cost")},
          {"input_tokens_per_s_per_gpu", report.at("metrics").at("throughput").at("input_tokens_per_s_per_gpu")},
          {"profile_kernel_caveats", report.at("derived").at("profile_kernel_caveats")},
          {"profile_measured_error", report.at("derived").at("profile_measured_error")},
          {"profile_unseen_model_error", report.at("derived").at("profile_unseen_model_error")},
          {"profile_unfitted_gpu_error", report.at("derived").at("profile_unfitted_gpu_error")}};
}

specs::ScenarioSpec with_mtp(const specs::ScenarioSpec& s, int next_n, double acceptance, const std::string& file) {
  nlohmann::json j = s.resolved;
  if (next_n == 0) {
    j["deployment"].erase("speculative");
  } else {
    j["deployment"]["speculative"] = {
        {"method", "mtp"}, {"num_draft_tokens", next_n}, {"acceptance_rates", {acceptance}}};
  }
  return specs::parse_scenario(j, file);
}

nlohmann::json decode_point_line(const specs::ScenarioSpec& s, int requests_per_rank, int context_tokens) {
  const specs::DeploymentSpec d = pool_or_whole(s.deployment, specs::Pool::decode);
  const calibration::Profile profile = calibration::profile_for(d.hardware, d.runtime, s.model);
  const simulator::StepTimeModel model(s.model, d, profile);
  const simulator::DecodePoint p = simulator::decode_point(model, d, requests_per_rank, context_tokens);
  traces::BenchmarkRecord b = steady_record(s, d);
  b.input_lengths = "steady-state decode at " + std::to_string(context_tokens) + " tokens of context";
  b.output_lengths = "steady state (no request ends)";
  b.arrival = "steady state: " + std::to_string(requests_per_rank) + " requests per attention-DP rank";
  b.concurrency = requests_per_rank * d.replica.dp;
  b.output_tokens_per_s_per_gpu = p.output_tokens_per_s_per_gpu;
  b.output_tokens_per_s = b.total_tokens_per_s = p.output_tokens_per_s_per_gpu * b.gpu_count;
  b.tokens_per_s_per_user = p.tokens_per_s_per_user;
  b.tpot_mean_ms = 1e3 / p.tokens_per_s_per_user;
  return {
      {"benchmark_record", traces::to_json(b)},
      {"steady_state",
       {{"kind", "decode"},
        {"requests_per_rank", requests_per_rank},
        {"context_tokens", context_tokens},
        {"step_s", p.step_s},
        {"acceptance_length", p.acceptance_length},
        {"tokens_per_s_per_user", p.tokens_per_s_per_user},
        {"output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu}}},
      {"profile_kernel_caveats", caveats_json(d, profile)},
      {"profile_measured_error", calibration::measured_error_json(profile, d.runtime, s.model)},
      {"profile_unseen_model_error", calibration::unseen_model_error_json(profile, d.runtime, s.model)},
      {"profile_unfitted_gpu_error", calibration::unfitted_gpu_error_json(d.hardware, profile, d.runtime, s.model)}};
}

nlohmann::json prefill_point_line(const specs::ScenarioSpec& s, int tokens_per_rank, int prompt_tokens) {
  const specs::DeploymentSpec d = pool_or_whole(s.deployment, specs::Pool::prefill);
  const calibration::Profile profile = calibration::profile_for(d.hardware, d.runtime, s.model);
  const simulator::StepTimeModel model(s.model, d, profile);
  const simulator::PrefillPoint p = simulator::prefill_point(model, d, tokens_per_rank, prompt_tokens);
  traces::BenchmarkRecord b = steady_record(s, d);
  b.input_lengths = "fixed " + std::to_string(prompt_tokens) + "-token prompts, " + std::to_string(tokens_per_rank) +
                    " tokens per rank per step";
  b.output_lengths = "none (prefill only)";
  b.arrival = "steady state: prompts back to back on each attention-DP rank";
  b.concurrency = d.replica.dp;
  b.output_tokens_per_s = b.output_tokens_per_s_per_gpu = 0.0;
  b.total_tokens_per_s = p.input_tokens_per_s_per_gpu * b.gpu_count;
  // A prompt's time from its first step to its last, without queueing: its time to first token.
  b.ttft_mean_ms = b.ttft_p50_ms = b.ttft_p95_ms = 1e3 * p.mean_prompt_s;
  return {
      {"benchmark_record", traces::to_json(b)},
      {"steady_state",
       {{"kind", "prefill"},
        {"tokens_per_rank", tokens_per_rank},
        {"prompt_tokens", prompt_tokens},
        {"prompts", p.prompts},
        {"steps", p.steps},
        {"mean_step_s", p.mean_step_s},
        {"mean_prompt_s", p.mean_prompt_s},
        {"input_tokens_per_s_per_gpu", p.input_tokens_per_s_per_gpu}}},
      {"profile_kernel_caveats", caveats_json(d, profile)},
      {"profile_measured_error", calibration::measured_error_json(profile, d.runtime, s.model)},
      {"profile_unseen_model_error", calibration::unseen_model_error_json(profile, d.runtime, s.model)},
      {"profile_unfitted_gpu_error", calibration::unfitted_gpu_error_json(d.hardware, profile, d.runtime, s.model)}};
}

}  // namespace fleetcast::planner
