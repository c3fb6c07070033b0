// `fleetcast workload fit TRACE`: read a request trace (Azure, Mooncake, BurstGPT or a mapped CSV/JSONL),
// optionally cut, rescale or loop it, and write the workload spec it fits (one class) with what it measured.
#include <cstdio>
#include <sstream>
#include <vector>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/traces/workload_fit.hpp"
#include "number_arg.hpp"

namespace fleetcast::cli {
namespace {

constexpr const char* kUsage =
    "usage: fleetcast workload fit TRACE [--format azure|mooncake|burstgpt|csv|jsonl] [--columns "
    "timestamp=A,input=B,output=C[,hash_ids=D]] [--time-unit s|ms] [--strict] [--window START:END] [--rate-scale X] "
    "[--loops N] [--empirical] [--name NAME] [-o WORKLOAD.json] [--json]";

double number_arg(const std::string& flag, const std::string& text) {
  if (const auto v = whole_text_number(text)) return *v;
  throw InputError("", flag, text, "expected a number");
}

// ROLE=NAME pairs separated by commas; a comma inside a name is kept when what follows it is not ROLE=, so a
// column such as "arrival, ms" can be named.
traces::ColumnMapping parse_columns(const std::string& text) {
  static const std::vector<std::string> kRoles = {"timestamp", "input", "output", "hash_ids"};
  auto role_at = [&](std::size_t pos) {
    for (const auto& r : kRoles)
      if (text.compare(pos, r.size() + 1, r + "=") == 0) return true;
    return false;
  };
  std::vector<std::string> items(1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ',' && role_at(i + 1)) {
      items.emplace_back();
    } else {
      items.back() += text[i];
    }
  }
  traces::ColumnMapping m;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (value.empty()) {
      throw InputError("", "--columns", item, "expected ROLE=NAME with ROLE timestamp, input, output or hash_ids");
    }
    if (key == "timestamp") {
      m.timestamp = value;
    } else if (key == "input") {
      m.input = value;
    } else if (key == "output") {
      m.output = value;
    } else if (key == "hash_ids") {
      m.hash_ids = value;
    } else {
      throw InputError("", "--columns", key, "unknown role; valid: timestamp, input, output, hash_ids");
    }
  }
  return m;
}

nlohmann::json fit_json(const traces::RequestTrace& t, const traces::WorkloadFit& f) {
  nlohmann::json bad = nlohmann::json::array();
  for (const auto& b : t.first_bad_rows) bad.push_back({{"line", b.line}, {"reason", b.reason}});
  auto lengths = [](const traces::LengthFit& l) {
    return nlohmann::json{{"mean", l.mean},
                          {"min", l.min},
                          {"max", l.max},
                          {"lognormal_median", l.lognormal.median},
                          {"lognormal_sigma", l.lognormal.sigma}};
  };
  return {{"file", t.file},
          {"format", traces::to_string(t.format)},
          {"rows", t.rows},
          {"skipped", t.skipped},
          {"first_bad_rows", bad},
          {"requests", f.requests},
          {"duration_s", f.duration_s},
          {"rate_per_s", f.rate_per_s},
          {"interarrival_cv", f.interarrival_cv},
          {"interarrival_cv_raw", f.interarrival_cv_raw},
          {"rate_profile", f.rate_profile.any() ? nlohmann::json{{"period_s", f.rate_profile.period_s},
                                                                 {"multipliers", f.rate_profile.multipliers},
                                                                 {"start_s", f.rate_profile.start_s}}
                                                : nlohmann::json(nullptr)},
          {"input_tokens", lengths(f.input)},
          {"output_tokens", lengths(f.output)},
          {"hourly_rate_per_s", f.hourly_rate_per_s},
          {"prefix_block_reuse", f.prefix_block_reuse >= 0.0 ? nlohmann::json(f.prefix_block_reuse) : nullptr},
          {"prefix_token_reuse", f.prefix_token_reuse >= 0.0 ? nlohmann::json(f.prefix_token_reuse) : nullptr}};
}

int run_fit(const Args& args) {
  std::string path, output, name, format_name, columns, window;
  traces::TraceReadOptions read;
  traces::ReplayOptions replay;
  bool empirical = false, json = false, unit_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--format" && has_value) {
      format_name = args[++i];
    } else if (a == "--columns" && has_value) {
      columns = args[++i];
    } else if (a == "--time-unit" && has_value) {
      const std::string u = args[++i];
      if (u != "s" && u != "ms") throw InputError("", "--time-unit", u, "valid: s, ms");
      read.columns.seconds_per_unit = u == "ms" ? 1e-3 : 1.0;
      unit_given = true;
    } else if (a == "--strict") {
      read.strict = true;
    } else if (a == "--window" && has_value) {
      window = args[++i];
      const auto colon = window.find(':');
      if (colon == std::string::npos) throw InputError("", "--window", window, "expected START:END in seconds");
      replay.window_start_s = number_arg("--window", window.substr(0, colon));
      replay.window_end_s = number_arg("--window", window.substr(colon + 1));
    } else if (a == "--rate-scale" && has_value) {
      replay.rate_scale = number_arg(a, args[++i]);
    } else if (a == "--loops" && has_value) {
      replay.loops = static_cast<int>(number_arg(a, args[++i]));
    } else if (a == "--empirical") {
      empirical = true;
    } else if (a == "--name" && has_value) {
      name = args[++i];
    } else if ((a == "-o" || a == "--output") && has_value) {
      output = args[++i];
    } else if (a == "--json") {
      json = true;
    } else if (!a.empty() && a[0] != '-' && path.empty()) {
      path = a;
    } else {
      throw InputError("", "workload fit", a, kUsage);
    }
  }
  if (path.empty()) throw InputError("", "workload fit", "", std::string("a trace file is required; ") + kUsage);
  read.format =
      format_name.empty() ? traces::detect_trace_format(path) : traces::trace_format_from(format_name, "--format");
  const bool generic = read.format == traces::TraceFormat::csv || read.format == traces::TraceFormat::jsonl;
  if (!generic && (!columns.empty() || unit_given)) {
    throw InputError("", columns.empty() ? "--time-unit" : "--columns", columns.empty() ? "given" : columns,
                     "only a generic csv or jsonl trace takes a column mapping and a time unit");
  }
  if (!columns.empty()) {
    const double unit = read.columns.seconds_per_unit;
    read.columns = parse_columns(columns);
    read.columns.seconds_per_unit = unit;
  }

  const traces::RequestTrace trace = traces::replay(traces::read_request_trace(path, read), replay);
  const traces::WorkloadFit fit = traces::fit_workload(trace);
  if (fit.requests < 2 || fit.rate_per_s <= 0.0) {
    throw InputError(path, "", std::to_string(fit.requests) + " requests",
                     "a workload needs at least two requests at different times to measure a rate");
  }
  const specs::WorkloadSpec workload =
      fit.workload(name.empty() ? std::string(traces::to_string(trace.format)) + " trace" : name, empirical);
  // What we write must be what the simulator reads back.
  const nlohmann::json spec = specs::to_json(workload);
  specs::parse_workload(spec, output.empty() ? "(workload fit)" : output);
  if (!output.empty()) write_file_atomically(output, spec.dump(2) + "\n");

  const nlohmann::json summary = fit_json(trace, fit);
  if (json) {
    std::printf("%s\n", nlohmann::json{{"fit", summary}, {"workload", spec}}.dump(2).c_str());
    return 0;
  }
  std::printf("%s (%s): %ld rows, %ld skipped\n", path.c_str(), std::string(traces::to_string(trace.format)).c_str(),
              trace.rows, trace.skipped);
  for (const auto& b : trace.first_bad_rows) std::printf("  skipped line %ld: %s\n", b.line, b.reason.c_str());
  std::printf("  %ld requests over %.1f s: %.3f req/s, inter-arrival CV %.2f (%s)\n", fit.requests, fit.duration_s,
              fit.rate_per_s, fit.interarrival_cv,
              workload.classes.front().arrival.kind == specs::ArrivalKind::poisson ? "Poisson" : "gamma");
  std::printf("  input tokens  mean %.0f, min %d, max %d, lognormal median %.0f sigma %.3f\n", fit.input.mean,
              fit.input.min, fit.input.max, fit.input.lognormal.median, fit.input.lognormal.sigma);
  std::printf("  output tokens mean %.0f, min %d, max %d, lognormal median %.0f sigma %.3f\n", fit.output.mean,
              fit.output.min, fit.output.max, fit.output.lognormal.median, fit.output.lognormal.sigma);
  if (fit.prefix_block_reuse >= 0.0) {
    std::printf("  prefix blocks seen before: %.1f %% of blocks, %.1f %% of input tokens\n",
                100.0 * fit.prefix_block_reuse, 100.0 * fit.prefix_token_reuse);
  }
  if (!fit.hourly_rate_per_s.empty()) {
    std::printf("  hourly rate (req/s):");
    for (double r : fit.hourly_rate_per_s) std::printf(" %.2f", r);
    std::printf("\n");
  }
  if (fit.rate_profile.any()) {
    const bool diurnal = fit.rate_profile.period_s == 86400.0;
    std::printf("  rate profile: %s, x mean rate per hour%s:", diurnal ? "diurnal" : "the trace's hours, repeating",
                diurnal ? " of day from 00:00" : "");
    for (double m : fit.rate_profile.multipliers) std::printf(" %.2f", m);
    std::printf("\n  inter-arrival CV %.2f over the trace's own gaps, %.2f with the profile's swings taken out\n",
                fit.interarrival_cv_raw, fit.interarrival_cv);
  } else {
    std::printf("  no rate profile: the trace spans %.2f h, under the 2 h a shape needs (a day for a diurnal one)\n",
                fit.duration_s / 3600.0);
  }
  if (!output.empty()) std::printf("wrote %s (%s lengths)\n", output.c_str(), empirical ? "empirical" : "lognormal");
  return 0;
}

}  // namespace

int run_workload(const Args& args) {
  if (args.empty() || args[0] != "fit") {
    throw InputError("", "workload", args.empty() ? "" : args[0], std::string("valid: fit; ") + kUsage);
  }
  return run_fit(Args(args.begin() + 1, args.end()));
}

}  // namespace fleetcast::cli
