// `fleetcast calibrate steps SCENARIO FPM.csv`: the step-time model, with the profile the scenario would use,
// against the engine iterations a serving engine measured (Dynamo's forward-pass metrics): per phase the median
// measured and predicted step, their ratio and the absolute percentage error. The step model checked alone, apart
// from the clients and scheduler an end-to-end benchmark also holds.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/forward_pass_metrics.hpp"
#include "fleetcast/validation/step_check.hpp"
#include "fleetcast/validation/step_fit.hpp"
#include "number_arg.hpp"
#include "scenario_arg.hpp"

namespace fleetcast::cli {
namespace {

constexpr const char* kStepsUsage =
    "usage: fleetcast calibrate steps SCENARIO FPM.csv [SCENARIO FPM.csv ...] [--pool prefill|decode] [--json] "
    "[-o PROFILE.json [--iterations N]]";

nlohmann::json to_json(const validation::StepCheck& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    rows.push_back({{"line", r.step.line},
                    {"phase", r.step.phase},
                    {"segment", r.step.segment},
                    {"dp_rank", r.step.dp_rank},
                    {"prefill_tokens", r.step.prefill_tokens},
                    {"prefill_requests", r.step.prefill_requests},
                    {"prefill_kv_tokens", r.step.prefill_kv_tokens},
                    {"decode_tokens", r.step.decode_tokens},
                    {"decode_requests", r.step.decode_requests},
                    {"decode_kv_tokens", r.step.decode_kv_tokens},
                    {"measured_ms", 1e3 * r.step.latency_s},
                    {"predicted_ms", 1e3 * r.predicted_s},
                    {"ape", r.ape}});
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : c.groups) {
    groups.push_back({{"group", g.key},
                      {"steps", g.steps},
                      {"measured_median_ms", g.measured_median_ms},
                      {"predicted_median_ms", g.predicted_median_ms},
                      {"median_ratio", g.median_ratio},
                      {"median_ape", g.median_ape},
                      {"p90_ape", g.p90_ape}});
  }
  return {{"rows", rows},
          {"groups", groups},
          {"empty_steps", c.empty_steps},
          {"steps_with_uncosted_drafts", c.steps_with_uncosted_drafts}};
}

// One case's check, as a table under its own header line.
void print_check(const specs::ScenarioSpec& s, const calibration::Profile& profile, const std::string& fpm_file,
                 const validation::StepCheck& check) {
  const auto& layout = s.deployment.replica;
  std::printf("%s on %d x %s (dp %d tp %d pp %d ep %d) under %s, profile %s: %zu measured steps of %s\n",
              s.model.name.c_str(), layout.gpus(), s.deployment.hardware.name.c_str(), layout.dp, layout.tp, layout.pp,
              layout.ep, s.deployment.runtime.c_str(), profile.kind.c_str(), check.rows.size(), fpm_file.c_str());
  std::printf("  %-28s %6s %12s %13s %10s %11s %8s\n", "group", "steps", "measured ms", "predicted ms", "pred/meas",
              "APE median", "APE p90");
  for (const auto& g : check.groups) {
    std::printf("  %-28s %6d %12.2f %13.2f %10.2f %10.1f%% %7.1f%%\n", g.key.c_str(), g.steps, g.measured_median_ms,
                g.predicted_median_ms, g.median_ratio, 100.0 * g.median_ape, 100.0 * g.p90_ape);
  }
  if (check.empty_steps > 0)
    std::printf("  %d idle iterations (no prefill, no decode) not costed\n", check.empty_steps);
  if (check.steps_with_uncosted_drafts > 0) {
    std::printf("  note: %d steps ran draft tokens the scenario has no speculative decoding for: not costed\n",
                check.steps_with_uncosted_drafts);
  }
}

}  // namespace

int run_calibrate_steps(const Args& args) {
  std::vector<std::string> positional;
  std::string pool_name, out_file;
  int iterations = 20;
  bool json = false, iterations_given = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      json = true;
    } else if (a == "-o" && i + 1 < args.size()) {
      out_file = args[++i];
    } else if (a == "--iterations" && i + 1 < args.size()) {
      const std::string text = args[++i];
      const auto n = whole_text_number(text);
      if (!n || !(*n >= 0 && *n <= 1000) || *n != static_cast<int>(*n))
        throw InputError("", "--iterations", text, "expected a whole number from 0 to 1,000");
      iterations = static_cast<int>(*n);
      iterations_given = true;
    } else if (a == "--pool" && i + 1 < args.size()) {
      pool_name = args[++i];
      if (pool_name != "prefill" && pool_name != "decode")
        throw InputError("", "--pool", pool_name, "valid: prefill, decode");
    } else if (!a.empty() && a[0] != '-') {
      positional.push_back(a);
    } else {
      throw InputError("", "calibrate steps", a, kStepsUsage);
    }
  }
  if (positional.empty() || positional.size() % 2 != 0)
    throw InputError("", "calibrate steps", "", std::string("give SCENARIO FPM.csv pairs\n") + kStepsUsage);
  if (out_file.empty() && iterations_given)
    throw InputError("", "--iterations", std::to_string(iterations), "the fit's iterations: give it with -o");
  std::vector<specs::ScenarioSpec> scenarios;
  std::vector<validation::StepCase> cases;
  for (std::size_t k = 0; k < positional.size(); k += 2) {
    specs::ScenarioSpec s = load_scenario_arg(positional[k]);
    select_pool(s, positional[k], pool_name);  // a disaggregated deployment: the pool that measured the steps
    cases.push_back({s.model, s.deployment, traces::read_forward_pass_metrics(positional[k + 1]), positional[k + 1]});
    scenarios.push_back(std::move(s));
  }
  const specs::DeploymentSpec& first = scenarios[0].deployment;
  std::optional<calibration::Profile> fitted;
  if (!out_file.empty()) {
    // One profile fitted to every case's steps, written; the steps are then checked with it.
    const validation::StepFit fit =
        validation::fit_step_profile(cases, calibration::profile_for(first.hardware, first.runtime, scenarios[0].model),
                                     calibration::datasheet_profile_for(first.hardware, first.runtime), iterations);
    write_file_atomically(out_file, calibration::to_json(fit.profile).dump(2) + "\n");
    std::fprintf(stderr,
                 "fitted in %d iterations: median APE train %.1f%% -> %.1f%% (%d steps), held out %.1f%% -> %.1f%% "
                 "(%d steps); wrote %s (kind measured: FLEETCAST_PROFILE_DIR makes it the %s %s profile)\n",
                 fit.iterations, 100.0 * fit.before_train.median_ape, 100.0 * fit.after_train.median_ape,
                 fit.after_train.steps, 100.0 * fit.before_held_out.median_ape, 100.0 * fit.after_held_out.median_ape,
                 fit.after_held_out.steps, out_file.c_str(), first.hardware.name.c_str(), first.runtime.c_str());
    fitted = fit.profile;
  }
  nlohmann::json all = nlohmann::json::array();
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const specs::ScenarioSpec& s = scenarios[k];
    const calibration::Profile profile =
        fitted ? *fitted : calibration::profile_for(s.deployment.hardware, s.deployment.runtime, s.model);
    const simulator::StepTimeModel model(s.model, s.deployment, profile);
    const auto check = validation::check_steps(model, cases[k].fpm, s.deployment.speculative.has_value());
    if (json) {
      nlohmann::json j = to_json(check);
      j["file"] = cases[k].file;
      j["model"] = s.model.name;
      j["hardware"] = s.deployment.hardware.name;
      j["runtime"] = s.deployment.runtime;
      j["profile_kind"] = profile.kind;
      all.push_back(std::move(j));
    } else {
      print_check(s, profile, cases[k].file, check);
    }
  }
  // One case: its object, as before; several: {"cases": [...]}.
  if (json) std::printf("%s\n", (all.size() == 1 ? all[0] : nlohmann::json{{"cases", all}}).dump(2).c_str());
  return 0;
}

}  // namespace fleetcast::cli
