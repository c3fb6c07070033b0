#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "fleetcast/simulator/report.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/specs/error.hpp"
#include "number_arg.hpp"
#include "scenario_arg.hpp"

namespace fleetcast::cli {
namespace {

const char* const kUsage =
    "usage: fleetcast simulate SCENARIO [-o REPORT.json] [--timeline] [--chrome-trace TRACE.json "
    "[--trace-window START_S:END_S]] [--progress json] [--quiet] | fleetcast simulate SCENARIO --check";

// "START_S:END_S" in simulated seconds, 0 <= START_S < END_S.
simulator::TraceWindow parse_trace_window(const std::string& text) {
  const auto fail = [&]() -> simulator::TraceWindow {
    throw InputError("", "--trace-window", text, "expected START_S:END_S in simulated seconds, 0 <= START_S < END_S");
  };
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) return fail();
  const auto start = whole_text_number(text.substr(0, colon)), end = whole_text_number(text.substr(colon + 1));
  if (!start || !end) return fail();
  simulator::TraceWindow w;
  w.start_s = *start;
  w.end_s = *end;
  if (!std::isfinite(w.start_s) || !std::isfinite(w.end_s) || w.start_s < 0.0 || w.start_s >= w.end_s) return fail();
  return w;
}

void require_folder(const std::string& path, const std::string& flag) {
  const auto dir = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(dir)) throw InputError(path, flag, path, "its folder does not exist");
}

// One line a person (or the GUI's form) reads: the scenario passed and what it plans.
std::string check_line(const nlohmann::json& c) {
  char text[512];
  std::snprintf(text, sizeof text,
                "ok: scenario '%s': %d GPUs in %d replicas, weights %.1f GB and KV cache %.1f GB per GPU "
                "(%.0f tokens per replica), %zu requests\n",
                c.at("scenario").get<std::string>().c_str(), c.at("gpus").get<int>(), c.at("replicas").get<int>(),
                c.at("weight_bytes_per_gpu").get<double>() / 1e9, c.at("kv_bytes_per_gpu").get<double>() / 1e9,
                c.at("kv_capacity_tokens_per_replica").get<double>(), c.at("requests").get<std::size_t>());
  return text;
}

}  // namespace

int run_simulate(const Args& args) {
  std::string scenario_arg, output, trace_output;
  bool progress = false, quiet = false;
  simulator::RunOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if ((a == "-o" || a == "--output") && has_value) {
      output = args[++i];
    } else if (a == "--progress" && has_value) {
      if (args[++i] != "json") throw InputError("", "--progress", args[i], "valid: json");
      progress = true;
    } else if (a == "--check") {
      options.check_only = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--timeline") {
      options.timeline = true;
    } else if (a == "--chrome-trace" && has_value) {
      trace_output = args[++i];
    } else if (a == "--trace-window" && has_value) {
      options.trace_window = parse_trace_window(args[++i]);
    } else if (!a.empty() && a[0] != '-' && scenario_arg.empty()) {
      scenario_arg = a;
    } else {
      throw InputError("", "simulate", a, std::string("unexpected argument; ") + kUsage);
    }
  }
  if (scenario_arg.empty()) throw InputError("", "simulate", "", "a scenario file or preset name is required");
  if (options.trace_window && trace_output.empty()) {
    throw InputError("", "--trace-window", "", "only goes with --chrome-trace TRACE.json");
  }
  if (!output.empty()) require_folder(output, "-o");
  if (!trace_output.empty()) require_folder(trace_output, "--chrome-trace");

  const specs::ScenarioSpec scenario = load_scenario_arg(scenario_arg);
  options.progress_json = progress;
  options.file = scenario_arg;
  options.chrome_trace = !trace_output.empty();
  if (options.check_only) {
    if (!output.empty() || !trace_output.empty() || options.timeline || progress) {
      throw InputError("", "--check", "",
                       "checks the scenario and simulates nothing: no -o, --timeline, "
                       "--chrome-trace or --progress with it");
    }
    std::fputs(check_line(simulator::run_simulation(scenario, options).report.at("check")).c_str(), stdout);
    return 0;
  }
  const simulator::SimulationResult result = simulator::run_simulation(scenario, options);

  if (!output.empty()) write_file_atomically(output, result.report.dump(2) + "\n");
  if (!trace_output.empty()) write_file_atomically(trace_output, result.chrome_trace);
  if (!quiet) std::fputs(simulator::format_summary(result.report).c_str(), stdout);
  return 0;
}

}  // namespace fleetcast::cli
