#include <cstdio>
#include <filesystem>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "fleetcast/simulator/report.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/specs/error.hpp"
#include "scenario_arg.hpp"

namespace fleetcast::cli {

int run_simulate(const Args& args) {
  std::string scenario_arg, output;
  bool progress = false, quiet = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "-o" || a == "--output") && i + 1 < args.size()) {
      output = args[++i];
    } else if (a == "--progress" && i + 1 < args.size()) {
      if (args[++i] != "json") throw InputError("", "--progress", args[i], "valid: json");
      progress = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] != '-' && scenario_arg.empty()) {
      scenario_arg = a;
    } else {
      throw InputError("", "simulate", a, "unexpected argument; usage: fleetcast simulate SCENARIO [-o REPORT.json]");
    }
  }
  if (scenario_arg.empty()) throw InputError("", "simulate", "", "a scenario file or preset name is required");
  if (!output.empty()) {
    const auto dir = std::filesystem::absolute(output).parent_path();
    if (!std::filesystem::is_directory(dir)) throw InputError(output, "-o", output, "its folder does not exist");
  }

  const specs::ScenarioSpec scenario = load_scenario_arg(scenario_arg);
  simulator::RunOptions options;
  options.progress_json = progress;
  options.file = scenario_arg;
  const nlohmann::json report = simulator::simulate(scenario, options);

  if (!output.empty()) write_file_atomically(output, report.dump(2) + "\n");
  if (!quiet) std::fputs(simulator::format_summary(report).c_str(), stdout);
  return 0;
}

}  // namespace fleetcast::cli
