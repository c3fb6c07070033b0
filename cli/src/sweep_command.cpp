// `fleetcast sweep`: a grid over scenario fields, or DeepInfer's decode and prefill sweeps, each point in its own
// worker process; writes sweeps/<tag>/results.jsonl and the Pareto chart sweeps/<tag>/pareto.svg (and pareto.png
// where fleetcast-png sits beside fleetcast).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "commands.hpp"
#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/planner/grid.hpp"
#include "fleetcast/planner/pareto.hpp"
#include "fleetcast/planner/sweep_points.hpp"
#include "fleetcast/planner/sweep_runner.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"
#include "mpi_ranks.hpp"
#include "number_arg.hpp"
#include "png_export.hpp"
#include "scenario_arg.hpp"

namespace fleetcast::cli {
namespace {

namespace fs = std::filesystem;

const char* const kUsage =
    "usage: fleetcast sweep grid SCENARIO TAG (--set PATH=V1,V2,... | --axes SWEEP.json)... | "
    "fleetcast sweep decode TAG CONTEXT NEXTN ACCEPTANCE [--scenario S] [--points N1,N2,...] | "
    "fleetcast sweep prefill TAG CONTEXT [--scenario S] [--batches T1,T2,...]; "
    "all take [-j N] [--out DIR] [--progress json]";

long parse_whole(const std::string& flag, const std::string& text, long lo, long hi) {
  try {
    std::size_t used = 0;
    const long v = std::stol(text, &used);
    if (used == text.size() && v >= lo && v <= hi) return v;
  } catch (const std::exception&) {
  }
  throw InputError("", flag, text, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
}

std::vector<int> parse_list(const std::string& flag, const std::string& text) {
  std::vector<int> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    out.push_back(static_cast<int>(parse_whole(flag, text.substr(start, comma - start), 1, 100000000)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

double parse_share(const std::string& flag, const std::string& text) {
  if (const auto v = whole_text_number(text); v && std::isfinite(*v) && *v >= 0.0 && *v <= 1.0) return *v;
  throw InputError("", flag, text, "expected an acceptance rate from 0 to 1");
}

// A tag names a folder under --out: letters, digits, '.', '-', '_', not starting with '.'.
void check_tag(const std::string& tag) {
  bool ok = !tag.empty() && tag[0] != '.';
  for (char c : tag) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_');
  if (!ok) throw InputError("", "TAG", tag, "a folder name of letters, digits, '.', '-' and '_' (e.g. ce-128k)");
}

// The options every kind takes; the rest are the kind's own positionals and flags.
struct Common {
  int jobs = 1;
  std::string out = "sweeps";
  bool progress = false;
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> flags;  // flag, value
};

Common parse_common(const Args& args, const std::vector<std::string>& own_flags) {
  Common c;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "-j" && has_value) {
      c.jobs = static_cast<int>(parse_whole("-j", args[++i], 1, 1024));
    } else if (a == "--out" && has_value) {
      c.out = args[++i];
    } else if (a == "--progress" && has_value) {
      if (args[++i] != "json") throw InputError("", "--progress", args[i], "valid: json");
      c.progress = true;
    } else if (std::find(own_flags.begin(), own_flags.end(), a) != own_flags.end() && has_value) {
      c.flags.emplace_back(a, args[++i]);
    } else if (!a.empty() && a[0] != '-') {
      c.positional.push_back(a);
    } else {
      throw InputError("", "sweep", a, std::string("unexpected argument; ") + kUsage);
    }
  }
  return c;
}

// What the sweep is: kept as sweep.json beside the results, so a second sweep under the same tag that is not the
// same sweep is refused instead of mixing its points with the first one's.
void claim_folder(const fs::path& dir, const nlohmann::json& definition) {
  fs::create_directories(dir);
  const fs::path file = dir / "sweep.json";
  const std::string text = definition.dump(2) + "\n";
  if (fs::exists(file)) {
    const nlohmann::json old = specs::read_json_file(file);
    if (old != definition) {
      throw InputError(file.string(), "", "",
                       "this tag holds a different sweep (kind, scenario or points differ): use another tag or "
                       "delete the folder");
    }
    return;
  }
  planner::write_file_atomically(file, text);
}

struct ChartSpec {
  planner::ChartText text;
  planner::Better better;
  const char* x_block;  // the line's object holding x ("steady_state" or "benchmark_record")
  const char* x_key;
  double x_scale;
  const char* y_block;
  const char* y_key;
  const char* label_key;  // the parameter shown beside each point ("" for the point index)
};

double figure(const nlohmann::json& line, const char* block, const char* key) {
  if (!line.contains(block) || !line[block].contains(key) || !line[block][key].is_number()) return NAN;
  return line[block][key].get<double>();
}

// Under mpirun: each rank runs the points whose index % size is its rank, each point in its own worker as without
// MPI, into the same folder (one host, or a folder every host shares); after a barrier rank 0 reads every point
// back (run_sweep finds them all finished: the resume path) and alone writes results.jsonl and the chart, so the
// files are the bytes of a local run. Other ranks get nullopt.
std::optional<planner::SweepOutcome> run_ranked(const MpiRanks& ranks, const std::vector<planner::SweepPoint>& points,
                                                const planner::PointWork& work, planner::SweepOptions options) {
  if (ranks.size() == 1) return planner::run_sweep(points, work, options);
  std::vector<planner::SweepPoint> mine;
  for (const planner::SweepPoint& p : points)
    if (p.index % ranks.size() == ranks.rank()) mine.push_back(p);
  const bool progress = options.progress_json;
  options.progress_json = false;
  const planner::SweepOutcome own = planner::run_sweep(mine, work, options);
  const int computed = ranks.sum(own.computed);  // also the barrier: every rank's points are written
  if (ranks.rank() != 0) return std::nullopt;
  options.progress_json = progress;
  planner::SweepOutcome all = planner::run_sweep(points, work, options);
  all.computed = computed;
  all.resumed = all.total - computed;
  return all;
}

int finish(const std::optional<planner::SweepOutcome>& ranked, const fs::path& dir, const ChartSpec& chart,
           const MpiRanks& ranks) {
  if (!ranked) return 0;  // not rank 0: rank 0 reports
  const planner::SweepOutcome& outcome = *ranked;
  std::vector<planner::ChartPoint> points;
  for (const nlohmann::json& line : outcome.lines) {
    std::string label = std::to_string(line["point"].get<int>());
    if (chart.label_key[0] != '\0') label = line["parameters"][chart.label_key].dump();
    points.push_back(
        {chart.x_scale * figure(line, chart.x_block, chart.x_key), figure(line, chart.y_block, chart.y_key), label});
  }
  const std::vector<bool> frontier = planner::pareto_frontier(points, chart.better);
  planner::write_file_atomically(dir / "pareto.svg", planner::pareto_svg(points, frontier, chart.text));
  const PngExport png = export_png_beside_cli(dir / "pareto.svg", dir / "pareto.png");

  std::printf("%6s  %-40s %24s %24s  %s\n", "point", "parameters", chart.text.x_label.c_str(),
              chart.text.y_label.c_str(), "frontier");
  for (std::size_t i = 0; i < outcome.lines.size(); ++i) {
    const nlohmann::json& line = outcome.lines[i];
    if (line.contains("error")) {
      std::printf("%6d  %-40s failed: %s\n", line["point"].get<int>(), line["parameters"].dump().c_str(),
                  line["error"].get<std::string>().c_str());
      continue;
    }
    std::printf("%6d  %-40s %24.1f %24.1f  %s\n", line["point"].get<int>(), line["parameters"].dump().c_str(),
                points[i].x, points[i].y, frontier[i] ? "*" : "");
  }
  // Once per GPU and runtime: how wrong the profile was on held-out measured runs (measured_accuracy.hpp), and where
  // the figures lean on a fit's stand-ins (kernel_caveats.hpp).
  std::set<std::string> noted;
  for (const nlohmann::json& line : outcome.lines) {
    if (!line.contains("benchmark_record")) continue;  // a failed point
    const nlohmann::json& b = line["benchmark_record"];
    const std::string runtime = b.value("runtime", "");  // "vllm (modelled)": the engine's name is the first word
    const std::string who = b.value("gpu", "") + " " + runtime.substr(0, runtime.find(' '));
    if (!noted.insert(who).second) continue;
    const nlohmann::json measured = line.value("profile_measured_error", nlohmann::json());
    std::printf("%s profile measured: %s\n", who.c_str(),
                measured.is_object()
                    ? calibration::describe(calibration::parse_pair_accuracy(measured, "results.jsonl")).c_str()
                    : "no measured error on record");
    const nlohmann::json unseen = line.value("profile_unseen_model_error", nlohmann::json());
    if (unseen.is_object()) {
      std::printf("%s profile %s\n", who.c_str(),
                  calibration::describe(
                      calibration::parse_unseen_model_error(unseen, "results.jsonl", "profile_unseen_model_error."))
                      .c_str());
    }
    const nlohmann::json unfitted = line.value("profile_unfitted_gpu_error", nlohmann::json());
    if (unfitted.is_object()) {
      std::printf("%s profile %s\n", who.c_str(),
                  calibration::describe(
                      calibration::parse_unfitted_gpu_error(unfitted, "results.jsonl", "profile_unfitted_gpu_error."))
                      .c_str());
    }
    const std::string caveats = calibration::short_list(line.value("profile_kernel_caveats", nlohmann::json::array()));
    if (!caveats.empty())
      std::printf("%s profile outside the kernel-level figures: %s\n", who.c_str(), caveats.c_str());
  }
  std::printf("%d points: %d run now, %d found finished, %d failed; wrote %s, %s%s%s\n", outcome.total,
              outcome.computed, outcome.resumed, outcome.failed, (dir / "results.jsonl").string().c_str(),
              (dir / "pareto.svg").string().c_str(),
              png.written ? (" and " + (dir / "pareto.png").string()).c_str() : (" (" + png.note + ")").c_str(),
              ranks.size() > 1 ? ("; points run over " + std::to_string(ranks.size()) + " MPI ranks").c_str() : "");
  return outcome.failed > 0 ? 1 : 0;
}

int run_grid(const Args& args, const MpiRanks& ranks) {
  const Common c = parse_common(args, {"--set", "--axes"});
  if (c.positional.size() != 2) throw InputError("", "sweep grid", "", std::string("give SCENARIO and TAG; ") + kUsage);
  const std::string& scenario_arg = c.positional[0];
  check_tag(c.positional[1]);
  std::vector<planner::GridAxis> axes;
  for (const auto& [flag, value] : c.flags) {
    if (flag == "--set") {
      axes.push_back(planner::parse_axis(value));
    } else {
      for (auto& a : planner::parse_axes_json(specs::read_json_file(value), value)) axes.push_back(std::move(a));
    }
  }
  const specs::ScenarioSpec base = load_scenario_arg(scenario_arg);
  // Every default filled in, so a field the file leaves out can be swept too; relative paths as in the file.
  const nlohmann::json base_json = specs::to_json(base);
  const fs::path base_dir = fs::exists(scenario_arg) ? fs::absolute(scenario_arg).parent_path() : fs::current_path();
  const std::vector<nlohmann::json> grid = planner::expand_grid(axes);
  // Every point is parsed here first: a field that does not exist or a value the spec rules refuse is an error
  // before any worker starts (exit 2), not a failed point.
  std::vector<planner::SweepPoint> points;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    specs::parse_scenario(planner::apply_parameters(base_json, grid[i], scenario_arg), scenario_arg, base_dir);
    points.push_back({static_cast<int>(i), grid[i]});
  }
  nlohmann::json axes_json = nlohmann::json::array();
  for (const auto& a : axes) axes_json.push_back({{"path", a.path}, {"values", a.values}});
  const fs::path dir = fs::path(c.out) / c.positional[1];
  claim_folder(dir, {{"kind", "grid"}, {"scenario", base_json}, {"axes", axes_json}});
  const auto outcome = run_ranked(ranks, points,
                                  [&](const planner::SweepPoint& p) {
                                    return planner::grid_point(base_json, p.parameters, scenario_arg, base_dir);
                                  },
                                  {.dir = dir, .jobs = c.jobs, .progress_json = c.progress});
  return finish(
      outcome, dir,
      {{"grid sweep " + c.positional[1] + ": " + base.name, "tokens/s per user (mean)", "output tokens/s per GPU"},
       {true, true},
       "benchmark_record",
       "tokens_per_s_per_user",
       1.0,
       "benchmark_record",
       "output_tokens_per_s_per_gpu",
       ""},
      ranks);
}

std::string flag_value(const Common& c, const std::string& flag, const std::string& fallback) {
  std::string v = fallback;
  for (const auto& [f, value] : c.flags)
    if (f == flag) v = value;
  return v;
}

int run_steady(const Args& args, bool decode, const MpiRanks& ranks) {
  const Common c = parse_common(args, {"--scenario", decode ? "--points" : "--batches"});
  const std::size_t want = decode ? 4 : 2;
  if (c.positional.size() != want) {
    throw InputError("", decode ? "sweep decode" : "sweep prefill", "",
                     std::string(decode ? "give TAG CONTEXT NEXTN ACCEPTANCE; " : "give TAG CONTEXT; ") + kUsage);
  }
  const std::string& tag = c.positional[0];
  check_tag(tag);
  const int context = static_cast<int>(parse_whole("CONTEXT", c.positional[1], 1, 100000000));
  const std::string scenario_arg =
      flag_value(c, "--scenario", decode ? "deepinfer-decode-gb200" : "deepinfer-prefill-gb200");
  specs::ScenarioSpec s = load_scenario_arg(scenario_arg);
  nlohmann::json definition = {{"kind", decode ? "decode" : "prefill"}, {"context_tokens", context}};
  std::vector<int> values;
  if (decode) {
    const int next_n = static_cast<int>(parse_whole("NEXTN", c.positional[2], 0, 16));
    const double acceptance = parse_share("ACCEPTANCE", c.positional[3]);
    s = planner::with_mtp(s, next_n, acceptance, scenario_arg);
    definition["next_n"] = next_n;
    definition["acceptance"] = acceptance;
    values = parse_list("--points", flag_value(c, "--points", "1,2,4,8,16,32,64,128,256"));
  } else {
    values = parse_list("--batches", flag_value(c, "--batches", "1024,2048,4096,8192,16384,32768,65536"));
  }
  definition["scenario"] = s.resolved;
  const char* key = decode ? "requests_per_rank" : "tokens_per_rank";
  std::vector<planner::SweepPoint> points;
  for (std::size_t i = 0; i < values.size(); ++i) points.push_back({static_cast<int>(i), {{key, values[i]}}});
  const fs::path dir = fs::path(c.out) / tag;
  claim_folder(dir, definition);
  const auto outcome = run_ranked(ranks, points,
                                  [&](const planner::SweepPoint& p) {
                                    const int v = p.parameters[key].get<int>();
                                    return decode ? planner::decode_point_line(s, v, context)
                                                  : planner::prefill_point_line(s, v, context);
                                  },
                                  {.dir = dir, .jobs = c.jobs, .progress_json = c.progress});
  if (decode) {
    return finish(outcome, dir,
                  {{"decode sweep " + tag + ": " + s.model.name + ", context " + std::to_string(context),
                    "tokens/s per user", "output tokens/s per GPU"},
                   {true, true},
                   "steady_state",
                   "tokens_per_s_per_user",
                   1.0,
                   "steady_state",
                   "output_tokens_per_s_per_gpu",
                   key},
                  ranks);
  }
  return finish(outcome, dir,
                {{"prefill sweep " + tag + ": " + s.model.name + ", prompt " + std::to_string(context),
                  "ms per prefill step", "input tokens/s per GPU"},
                 {false, true},
                 "steady_state",
                 "mean_step_s",
                 1e3,
                 "steady_state",
                 "input_tokens_per_s_per_gpu",
                 key},
                ranks);
}

}  // namespace

int run_sweep(const Args& args) {
  if (args.empty()) throw InputError("", "sweep", "", std::string("give a kind: grid, decode or prefill; ") + kUsage);
  const std::string kind = args[0];
  const Args rest(args.begin() + 1, args.end());
  const MpiRanks ranks;
  if (kind == "grid") return run_grid(rest, ranks);
  if (kind == "decode") return run_steady(rest, true, ranks);
  if (kind == "prefill") return run_steady(rest, false, ranks);
  throw InputError("", "sweep", kind, std::string("unknown kind; valid: grid, decode, prefill; ") + kUsage);
}

}  // namespace fleetcast::cli
