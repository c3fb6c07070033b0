// `fleetcast plan PLAN.json`: the cheapest configurations that meet the plan's SLOs (simulator/planner/plan_*).
#include <cmath>
#include <cstdio>
#include <string>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "fleetcast/planner/plan_report.hpp"
#include "fleetcast/planner/plan_search.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/number_text.hpp"
#include "fleetcast/specs/plan.hpp"

namespace fleetcast::cli {
namespace {

const char* const kUsage =
    "usage: fleetcast plan PLAN.json [-o OUT.json] [-j N] [--progress json] [--no-prune] [--rows N] [--quiet]";

int parse_count(const std::string& flag, const std::string& text, int lo, int hi) {
  if (const auto v = whole_text_number(text); v && *v >= lo && *v <= hi && *v == std::floor(*v)) {
    return static_cast<int>(*v);
  }
  throw InputError("", flag, text, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
}

}  // namespace

int run_plan(const Args& args) {
  std::string plan_file, out_file;
  planner::PlanOptions options;
  int rows = 20;
  bool quiet = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "-o" && has_value) {
      out_file = args[++i];
    } else if (a == "-j" && has_value) {
      options.jobs = parse_count("-j", args[++i], 1, 1024);
    } else if (a == "--rows" && has_value) {
      rows = parse_count("--rows", args[++i], 0, 1000000);
    } else if (a == "--progress" && has_value) {
      if (args[++i] != "json") throw InputError("", "--progress", args[i], "valid: json");
      options.progress_json = true;
    } else if (a == "--no-prune") {
      options.prune = false;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (plan_file.empty() && !a.empty() && a[0] != '-') {
      plan_file = a;
    } else {
      throw InputError("", "plan", a, std::string("unexpected argument; ") + kUsage);
    }
  }
  if (plan_file.empty()) throw InputError("", "plan", "", std::string("give a plan file; ") + kUsage);
  const specs::PlanSpec plan = specs::load_plan(plan_file);
  options.file = plan_file;
  options.base_dir = std::filesystem::absolute(plan_file).parent_path();
  const planner::PlanResult result = planner::run_plan(plan, options);
  const nlohmann::json out = planner::plan_json(plan, result);
  if (!out_file.empty()) write_file_atomically(out_file, out.dump(2) + "\n");
  if (!quiet) std::fputs(planner::plan_text(out, rows).c_str(), stdout);
  // The speed figure goes to stderr: the outputs above stay the same bytes from run to run. Flushed first, so that
  // where both streams share a pipe (`2>&1`) the line does not land inside the table.
  std::fflush(stdout);
  const double wall = result.simulate_wall_s;
  std::fprintf(stderr, "simulated %d configurations in %.1f s with %d workers: %.0f per minute\n", result.simulated,
               wall, options.jobs, wall > 0.0 ? 60.0 * result.simulated / wall : 0.0);
  return 0;
}

}  // namespace fleetcast::cli
