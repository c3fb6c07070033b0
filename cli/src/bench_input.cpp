#include "bench_input.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/server_config.hpp"
#include "fleetcast/traces/trt_perf_metrics.hpp"
#include "number_arg.hpp"

namespace fleetcast::cli {

bool BenchInput::take(const Args& args, std::size_t& i) {
  const std::string& a = args[i];
  const auto value = [&]() -> const std::string& {
    if (i + 1 >= args.size()) throw InputError("", a, "", "needs a value");
    return args[++i];
  };
  const auto layout = [&](int& field, bool& given_flag) {
    field = whole_number_arg(a, value(), 1);
    given_flag = true;
  };
  if (a == "--bench") {
    // --bench FILE... : every argument up to the next flag is a result file (or a directory of them).
    files.push_back(value());
    while (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') files.push_back(args[++i]);
  } else if (a == "--hardware") {
    given.hardware = value();
  } else if (a == "--model") {
    given.model = value();
  } else if (a == "--runtime") {
    given.runtime = value();
  } else if (a == "--precision") {
    given.precision = value();
  } else if (a == "--tp") {
    layout(given.tp, layout_flags.tp);
  } else if (a == "--pp") {
    layout(given.pp, layout_flags.pp);
  } else if (a == "--dp") {
    layout(given.dp, layout_flags.dp);
  } else if (a == "--ep") {
    layout(given.ep, layout_flags.ep);
  } else if (a == "--max-num-seqs") {
    layout(given.max_num_seqs, layout_flags.max_num_seqs);
  } else if (a == "--acceptance-length") {
    const std::string& text = value();
    const auto v = whole_text_number(text);
    if (!v || !(*v >= 1.0) || *v > 17.0) {
      throw InputError("", a, text,
                       "the mean tokens a speculative step yields per sequence, the verified one counted: in [1, 17]");
    }
    given.accept_length = *v;
  } else if (a == "--perf-metrics") {
    perf_metrics = value();
  } else if (a == "--server-args") {
    server_args = value();
  } else if (a == "--server-config") {
    server_config = value();
  } else {
    return false;
  }
  return true;
}

traces::BenchDeployment BenchInput::deployment() const {
  traces::BenchDeployment merged = given;
  if (has_launch()) {
    traces::take_server_settings(
        traces::merge_server_settings(
            server_args.empty() ? traces::ServerSettings{} : traces::parse_server_command(server_args),
            server_config.empty() ? traces::ServerSettings{} : traces::read_server_config(server_config)),
        merged, layout_flags);
  }
  return merged;
}

namespace {

// The result files a --bench argument names: the file itself, or under a directory every AIPerf and genai-perf export
// (an artifacts tree holds one per run, beside inputs and per-request records that are not results), sorted by path.
std::vector<std::string> result_files(const std::string& arg) {
  if (!std::filesystem::is_directory(arg)) return {arg};
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && (name == "profile_export_aiperf.json" || name == "profile_export_genai_perf.json"))
      found.push_back(entry.path().string());
  }
  if (found.empty()) {
    throw InputError(arg, "", "",
                     "no profile_export_aiperf.json or profile_export_genai_perf.json under the directory: give the "
                     "result files themselves");
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

traces::MeasuredServingResults BenchInput::read(bool strict) const {
  if (!perf_metrics.empty() && given.accept_length > 0.0) {
    throw InputError("", "--acceptance-length", std::to_string(given.accept_length),
                     "--perf-metrics gives the run's own accepted length: give one of the two");
  }
  const traces::BenchDeployment merged = deployment();
  std::vector<std::string> paths;
  for (const std::string& arg : files) {
    for (std::string& f : result_files(arg)) paths.push_back(std::move(f));
  }
  traces::MeasuredServingResults all;
  for (const std::string& f : paths) {
    traces::MeasuredServingResults one = traces::read_bench_results(f, merged, strict);
    all.file += (all.file.empty() ? "" : ", ") + one.file;
    all.rows += one.rows;
    all.skipped += one.skipped;
    for (auto& b : one.first_bad_rows) {
      if (all.first_bad_rows.size() < traces::kBadRowsKept) all.first_bad_rows.push_back(b);
    }
    for (auto& r : one.runs) all.runs.push_back(std::move(r));
  }
  for (const auto& b : all.first_bad_rows)
    std::fprintf(stderr, "skipped record at line %ld: %s\n", b.line, b.reason.c_str());
  if (!perf_metrics.empty()) {
    if (all.runs.size() != 1) {
      throw InputError(
          "", "--perf-metrics", perf_metrics,
          "the engine's timing of one benchmark run; --bench gave " + std::to_string(all.runs.size()) + " records");
    }
    traces::MeasuredServingRun& run = all.runs.front();
    const long measured = run.num_requests - run.warmup_requests;
    traces::apply_engine_timing(traces::summarize_engine_timing(traces::read_trt_perf_metrics(perf_metrics), measured,
                                                                run.output_tokens, perf_metrics),
                                run);
  }
  return all;
}

}  // namespace fleetcast::cli
