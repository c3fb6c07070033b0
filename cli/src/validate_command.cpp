// `fleetcast validate --silicon FILE`: predict every measured serving run of a silicon CSV and say how wrong
// the prediction is, per row and per group, with the rows it could not map and why.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include "atomic_file.hpp"
#include "bench_input.hpp"
#include "client_mapping_flag.hpp"
#include "commands.hpp"
#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/model_scope.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/traces/bench_results.hpp"
#include "fleetcast/traces/serving_results.hpp"
#include "fleetcast/validation/serving_fit.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "fleetcast/validation/validate_runs.hpp"
#include "number_arg.hpp"
#include "validate_decomposition.hpp"

namespace fleetcast::cli {
namespace {

constexpr const char* kUsage =
    "usage: fleetcast validate (--silicon FILE | --bench FILE... [--hardware H] [--tp N] [--pp N] [--dp N] [--ep N] "
    "[--model M] [--runtime R] [--precision P] [--max-num-seqs N] [--server-args CMD] [--server-config YAML] "
    "[--acceptance-length L | --perf-metrics FILE]) [--json OUT] [-j N] [--strict] [--match TEXT] "
    "[--every K] [--split all|held-out|train] [--markdown FILE] [--scenarios DIR] [--progress json] [--summary-only] "
    "[--fixed-lengths | --benchmark-clients] [--decompose] [--accuracy FILE]";

// One line per predicted row; with `notes` (benchmark files: a few runs, each read with its own assumptions) the
// mapping's notes under it, so that how a run and its launch were read is in plain sight.
void print_rows(const validation::ValidationResult& r, bool notes) {
  std::printf("%-72s %10s %10s %7s %9s %9s %7s\n", "id", "TTFT meas", "pred (ms)", "APE", "TPOT meas", "pred (ms)",
              "APE");
  for (const auto& p : r.rows) {
    if (!p.predicted) continue;
    std::printf("%-72.72s %10.1f %10.1f %6.1f%% %9.2f %9.2f %6.1f%%\n", p.run.id.c_str(), p.run.ttft_ms,
                p.predicted_ttft_ms, 100.0 * p.ttft_ape, p.run.tpot_ms, p.predicted_tpot_ms, 100.0 * p.tpot_ape);
    if (notes && !p.notes.empty()) std::printf("    read as: %s\n", p.notes.c_str());
  }
  std::printf("\n");
}

void print_groups(const validation::ValidationResult& r) {
  std::printf("%-52s %5s %5s %9s %9s %9s %9s\n", "group (model | system | backend | mode)", "rows", "pred", "TTFT med",
              "TTFT p90", "TPOT med", "TPOT p90");
  auto line = [](const validation::GroupSummary& g) {
    auto pct = [](const validation::ErrorSummary& e, double v) {
      if (e.count == 0) return std::string("        -");
      char buf[32];
      std::snprintf(buf, sizeof buf, "%8.1f%%", 100.0 * v);
      return std::string(buf);
    };
    std::printf("%-52.52s %5d %5d %s %s %s %s\n", g.group.c_str(), g.rows, g.predicted,
                pct(g.ttft, g.ttft.median).c_str(), pct(g.ttft, g.ttft.p90).c_str(), pct(g.tpot, g.tpot.median).c_str(),
                pct(g.tpot, g.tpot.p90).c_str());
  };
  for (const auto& g : r.groups) line(g);
  line(r.overall);
  std::printf("\ncoverage: %d of %ld rows predicted (%.1f%%)", r.overall.predicted, r.rows_read, 100.0 * r.coverage());
  if (r.rows_skipped > 0) std::printf("; %ld unreadable rows skipped by the reader", r.rows_skipped);
  std::printf("\n");
}

// The percentiles benchmark files report beside the means (p99 TTFT is what an SLO is written on): per row unless
// only the summary is asked for, then per metric and percentile over the rows.
void print_percentiles(const validation::ValidationResult& r, bool summary_only) {
  if (r.percentiles.empty()) return;
  std::printf("\npercentiles the benchmark files report, measured vs predicted:\n");
  if (!summary_only) {
    std::printf("%-56s %-5s %4s %11s %11s %7s\n", "id", "what", "p", "meas (ms)", "pred (ms)", "APE");
    for (const auto& row : r.rows) {
      for (const auto& q : row.percentiles) {
        std::printf("%-56.56s %-5s %4d %11.2f %11.2f %6.1f%%\n", row.run.id.c_str(), q.metric.c_str(), q.percentile,
                    q.measured_ms, q.predicted_ms, 100.0 * q.ape);
      }
    }
  }
  std::printf("%-5s %4s %5s %9s %9s\n", "what", "p", "rows", "APE med", "APE p90");
  for (const auto& p : r.percentiles) {
    std::printf("%-5s %4d %5d %8.1f%% %8.1f%%\n", p.metric.c_str(), p.percentile, p.error.count, 100.0 * p.error.median,
                100.0 * p.error.p90);
  }
}

void print_unmapped(const validation::ValidationResult& r) {
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& p : r.rows)
    if (!p.predicted) by_reason[p.reason].push_back(p.run.id);
  if (by_reason.empty()) return;
  std::printf("\nnot predicted (reason: rows, first ids):\n");
  for (const auto& [reason, ids] : by_reason) {
    std::printf("  %s: %zu (%s%s)\n", reason.c_str(), ids.size(), ids.front().c_str(), ids.size() > 1 ? ", ..." : "");
  }
}

// Runs whose measured rate needs more prompt compute than their GPUs' best GEMM gives (prompt_compute.hpp): their
// TTFT and TPOT are not what the engine takes for prompts of the stated length, whatever a model predicts.
void print_prompt_compute(const validation::ValidationResult& r) {
  std::vector<const validation::RowPrediction*> beyond;
  for (const auto& p : r.rows)
    if (p.prompt_compute_share && *p.prompt_compute_share > 1.0) beyond.push_back(&p);
  if (beyond.empty()) return;
  std::printf(
      "\nmeasured rates that need more prompt compute than the GPUs' best GEMM reaches (prompts served from a "
      "prefix cache or shorter than stated): %zu\n",
      beyond.size());
  for (const auto* p : beyond) std::printf("  %-72.72s %5.2fx\n", p->run.id.c_str(), *p->prompt_compute_share);
}

// Closed-loop runs with far fewer clients decoding at a time than the simulation has (validate_runs.hpp,
// decoding_clients): something held their requests back that the row does not state.
void print_held_back(const validation::ValidationResult& r) {
  std::vector<const validation::RowPrediction*> held;
  for (const auto& p : r.rows)
    if (p.predicted && p.held_back()) held.push_back(&p);
  if (held.empty()) return;
  std::printf(
      "\nclosed-loop runs with under half the simulated clients decoding at a time (Little's law on the means: a "
      "cap the run does not state): %zu\n",
      held.size());
  for (const auto* p : held) {
    std::printf("  %-72.72s %5.0f of %d (simulated %.0f)\n", p->run.id.c_str(), p->measured_decoding_clients,
                p->run.concurrency, p->predicted_decoding_clients);
  }
}

// The profile each predicted row's (hardware, runtime) used, with its figures outside what the kernels reach
// (calibration/kernel_caveats.hpp): a fit that reproduces its rows with a GEMM faster than any measured one is part
// of what the error table means.
// A row group's model and system ("model | system | backend | mode"; the system is the hardware preset's name), or
// none for a group not of that form.
std::optional<std::pair<std::string, std::string>> model_and_system(const std::string& group) {
  const std::vector<std::string> parts = validation::serving_group_parts(group);
  if (parts.size() < 3) return std::nullopt;
  return std::make_pair(parts[0], parts[1]);
}

struct ProfileInUse {
  std::string hardware, runtime, kind;
  std::vector<calibration::KernelCaveat> caveats;
  std::vector<std::string> fitted_models;
  bool moe_models_only = false;  // a dense model takes the datasheet GEMM and attention rates (model_scope.hpp)
  std::string model_kind;        // "dense" or "moe": the pair's fit for that kind of model alone (Profile::model_kind)
};

// " (fitted on MoE models only: ...)" where a dense model does not take the fit's GEMM and attention rates.
std::string scope_note(const ProfileInUse& p) {
  if (!p.model_kind.empty()) return " [for " + p.model_kind + " models, fitted on their runs alone]";
  if (!p.moe_models_only) return "";
  std::string models;
  for (const auto& m : p.fitted_models) models += (models.empty() ? "" : ", ") + m;
  return " [fitted on MoE models only (" + models + "): a dense model takes the datasheet GEMM and attention rates]";
}

std::vector<ProfileInUse> profiles_in_use(const validation::ValidationResult& r) {
  // Per pair, one model of each kind among its rows: every model of a kind takes the same profile.
  std::map<std::pair<std::string, std::string>, std::map<bool, std::string>> pairs;
  for (const auto& p : r.rows) {
    if (!p.predicted) continue;
    if (const auto names = model_and_system(p.group))
      pairs[{names->second, p.run.backend}][specs::model_preset(names->first).moe.has_value()] = names->first;
  }
  std::vector<ProfileInUse> out;
  for (const auto& [pair, models] : pairs) {
    const specs::HardwareSpec hw = specs::hardware_preset(pair.first);
    // The pair's profile where a kind of its models took it (a dense model on a fit of MoE models alone with the
    // datasheet compute, said in the note), and the fit of a kind of model's own where that kind took one.
    bool pair_listed = false;
    for (auto it = models.rbegin(); it != models.rend(); ++it) {  // MoE first: the pair's fit before a dense one
      const std::string& model = it->second;
      const calibration::Profile taken = calibration::profile_for(hw, pair.second, specs::model_preset(model));
      const calibration::Profile profile = taken.model_kind.empty() ? calibration::profile_for(hw, pair.second) : taken;
      if (taken.model_kind.empty() && std::exchange(pair_listed, true)) continue;
      out.push_back({pair.first, pair.second, profile.kind,
                     calibration::kernel_caveats(profile, calibration::datasheet_profile_for(hw, pair.second)),
                     profile.fitted_models, calibration::fitted_on_moe_models_only(profile), profile.model_kind});
    }
  }
  return out;
}

std::string caveat_list(const std::vector<calibration::KernelCaveat>& caveats) {
  std::string text;
  for (const auto& c : caveats) text += (text.empty() ? "" : "; ") + calibration::describe(c);
  return text;
}

void print_profiles(const std::vector<ProfileInUse>& profiles) {
  bool any = false;
  for (const auto& p : profiles) any = any || !p.caveats.empty();
  if (!any) return;
  std::printf(
      "\nprofiles in use with figures outside the kernel-level ones (above: faster than any kernel measured; "
      "below: under half of it):\n");
  for (const auto& p : profiles) {
    if (!p.caveats.empty())
      std::printf("  %s %s (%s): %s%s\n", p.hardware.c_str(), p.runtime.c_str(), p.kind.c_str(),
                  caveat_list(p.caveats).c_str(), scope_note(p).c_str());
  }
}

nlohmann::json profiles_json(const std::vector<ProfileInUse>& profiles) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : profiles) {
    out.push_back({{"hardware", p.hardware},
                   {"runtime", p.runtime},
                   {"kind", p.kind},
                   {"kernel_caveats", calibration::to_json(p.caveats)},
                   {"fitted_models", p.fitted_models},
                   {"dense_models_take_datasheet_compute", p.moe_models_only},
                   {"model_kind", p.model_kind.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.model_kind)}});
  }
  return out;
}

// Each (hardware, runtime)'s error over the predicted rows, with the profile that made the predictions
// (measured_accuracy.hpp), the dense and the MoE models' rows apart: what `--accuracy FILE` merges into the table
// forecasts quote.
std::vector<calibration::PairAccuracy> pair_accuracy(const validation::ValidationResult& r) {
  struct Errors {
    std::vector<double> ttft, tpot, ttft_ratio, tpot_ratio;
    std::set<std::string> models;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Errors> by_pair;  // hardware, runtime, architecture
  for (const auto& p : r.rows) {
    if (!p.predicted || !(p.run.ttft_ms > 0.0) || !(p.run.tpot_ms > 0.0)) continue;
    const auto names = model_and_system(p.group);
    if (!names) continue;
    // A predicted row's model is a preset (the mapping never guesses one).
    const std::string architecture = calibration::architecture_of(specs::model_preset(names->first));
    Errors& e = by_pair[{names->second, p.run.backend, architecture}];
    e.ttft.push_back(p.ttft_ape);
    e.tpot.push_back(p.tpot_ape);
    e.ttft_ratio.push_back(p.predicted_ttft_ms / p.run.ttft_ms);
    e.tpot_ratio.push_back(p.predicted_tpot_ms / p.run.tpot_ms);
    e.models.insert(names->first);
  }
  std::vector<calibration::PairAccuracy> out;
  for (const auto& [pair, e] : by_pair) {
    const auto& [hardware, runtime, architecture] = pair;
    // The profile the rows' models took: the pair's, or its fit for their kind (every model of one architecture
    // takes the same one), so that a forecast finds the entry by that profile's fingerprint.
    const calibration::Profile profile =
        calibration::profile_for(specs::hardware_preset(hardware), runtime, specs::model_preset(*e.models.begin()));
    const auto ttft = validation::summarise_errors(e.ttft), tpot = validation::summarise_errors(e.tpot);
    out.push_back({hardware,
                   runtime,
                   profile.kind,
                   calibration::profile_fingerprint(profile),
                   static_cast<int>(e.ttft.size()),
                   {e.models.begin(), e.models.end()},
                   {ttft.median, ttft.p90, validation::summarise_errors(e.ttft_ratio).median},
                   {tpot.median, tpot.p90, validation::summarise_errors(e.tpot_ratio).median},
                   architecture});
  }
  return out;
}

// FILE's entries (none when it is missing), read before any row runs: a bad table fails the command up front.
std::vector<calibration::PairAccuracy> read_accuracy(const std::string& file, const char* schema) {
  if (file.empty() || !std::filesystem::exists(file)) return {};
  std::ifstream in(file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) throw InputError(file, "", "", "not JSON: an accuracy table is merged into, not replaced");
  return calibration::parse_accuracy_table(j, file, schema);
}

// Merges this run's pairs into FILE (created when missing), written whole or not at all.
void write_accuracy(const std::string& file, std::vector<calibration::PairAccuracy> existing,
                    const validation::ValidationResult& r, const std::string& how, const char* schema) {
  const nlohmann::json table = calibration::merge_accuracy_table(std::move(existing), pair_accuracy(r), how, schema);
  write_file_atomically(file, table.dump(2) + "\n");
}

// The group table as Markdown, for docs/ACCURACY.md.
std::string markdown_groups(const validation::ValidationResult& r, const std::vector<ProfileInUse>& profiles) {
  std::string out =
      "| model | system | backend | mode | rows | predicted | TTFT median | TTFT p90 | TPOT median | TPOT p90 |\n"
      "|---|---|---|---|---:|---:|---:|---:|---:|---:|\n";
  auto pct = [](const validation::ErrorSummary& e, double v) {
    if (e.count == 0) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * v);
    return std::string(buf);
  };
  auto row = [&](const validation::GroupSummary& g, const std::string& label) {
    out += "| " + label + " | " + std::to_string(g.rows) + " | " + std::to_string(g.predicted) + " | " +
           pct(g.ttft, g.ttft.median) + " | " + pct(g.ttft, g.ttft.p90) + " | " + pct(g.tpot, g.tpot.median) + " | " +
           pct(g.tpot, g.tpot.p90) + " |\n";
  };
  for (const auto& g : r.groups) row(g, g.group);  // "model | system | backend | mode": four table cells
  row(r.overall, "**all** | | | ");
  char buf[128];
  std::snprintf(buf, sizeof buf, "\nCoverage: %d of %ld rows predicted (%.1f%%).\n", r.overall.predicted, r.rows_read,
                100.0 * r.coverage());
  out += buf;
  std::string flagged;
  for (const auto& p : profiles) {
    if (!p.caveats.empty())
      flagged +=
          "- " + p.hardware + " " + p.runtime + " (" + p.kind + "): " + caveat_list(p.caveats) + scope_note(p) + "\n";
  }
  if (!flagged.empty()) {
    out +=
        "\nProfiles in use with figures outside the kernel-level ones (above: faster than any kernel measured, "
        "standing in for time the step model counts and the engine does not spend; below: under half of it):\n\n" +
        flagged;
  }
  return out;
}

}  // namespace

int run_validate(const Args& args) {
  std::string silicon, json_out;
  BenchInput bench;
  bool strict = false, progress_json = false, summary_only = false, decompose = false;
  ClientMappingFlag clients;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int every = 1;
  std::string match, split = "all", markdown, scenarios, accuracy;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw InputError("", a, "", std::string("needs a value; ") + kUsage);
      return args[++i];
    };
    if (bench.take(args, i)) continue;
    if (a == "--silicon") {
      silicon = value();
    } else if (a == "--json") {
      json_out = value();
    } else if (a == "-j" || a == "--jobs") {
      jobs = whole_number_arg(a, value(), 1);
    } else if (a == "--every") {
      every = whole_number_arg(a, value(), 1);
    } else if (a == "--match") {
      match = value();
    } else if (a == "--split") {
      split = value();
      if (split != "all" && split != "held-out" && split != "train") {
        throw InputError("", "--split", split, "valid: all, held-out (the rows calibrate serving never fits), train");
      }
    } else if (a == "--markdown") {
      markdown = value();
    } else if (a == "--scenarios") {
      scenarios = value();
    } else if (a == "--strict") {
      strict = true;
    } else if (a == "--summary-only") {
      summary_only = true;
    } else if (clients.take(a)) {
      // --fixed-lengths, --drawn-lengths or --benchmark-clients, taken
    } else if (a == "--decompose") {
      decompose = true;
    } else if (a == "--accuracy") {
      accuracy = value();
    } else if (a == "--progress") {
      if (value() != "json") throw InputError("", "--progress", args[i], "the only progress format is json");
      progress_json = true;
    } else {
      throw InputError("", "validate", a, kUsage);
    }
  }
  // Two tables: under the profiles in use, the held-out rows (the rest shaped the fits); under --unfitted-profiles,
  // every row, since no GPU's own runs shaped the pick it is scored with (unfitted_gpu_accuracy.hpp).
  const bool unfitted = calibration::profile_choice() == calibration::ProfileChoice::unfitted;
  const char* accuracy_schema =
      unfitted ? calibration::kUnfittedGpuAccuracySchema : calibration::kHeldOutAccuracySchema;
  if (!accuracy.empty() && !unfitted && (silicon.empty() || split != "held-out")) {
    throw InputError("", "--accuracy", accuracy,
                     "the accuracy table holds the error on rows the fits never saw: give --silicon FILE --split "
                     "held-out");
  }
  if (!accuracy.empty() && unfitted && (silicon.empty() || split != "all" || every > 1 || !match.empty())) {
    throw InputError("", "--accuracy", accuracy,
                     "under --unfitted-profiles the table holds every GPU's error over all its runs: give --silicon "
                     "FILE and no --split, --match or --every");
  }
  const std::vector<calibration::PairAccuracy> existing_accuracy = read_accuracy(accuracy, accuracy_schema);
  if (silicon.empty() == bench.files.empty()) {
    throw InputError("", "validate", "", std::string("give either --silicon FILE or --bench FILE...; ") + kUsage);
  }
  if (bench.has_launch() && !silicon.empty()) {
    throw InputError("", bench.server_config.empty() ? "--server-args" : "--server-config", "",
                     "a silicon CSV's rows carry their own launch settings; engine settings go with --bench files");
  }
  traces::MeasuredServingResults results =
      silicon.empty() ? bench.read(strict) : traces::read_silicon_csv(silicon, strict);
  // A CSV row's client is inferred from its provenance and mapped as asked (by default every row at fixed lengths);
  // a benchmark file states its own lengths (random_range_ratio).
  clients.apply(results, !silicon.empty());
  validation::ValidateOptions options;
  options.jobs = jobs;
  if (every > 1 || !match.empty() || split != "all") {
    // Every K-th row (by position in the file) whose id or group contains TEXT: a quick, repeatable subset.
    auto position = std::make_shared<long>(0);
    options.select = [position, every, match, split](const traces::MeasuredServingRun& run) {
      if (split != "all" && validation::held_out(run.id) != (split == "held-out")) return false;
      if (!match.empty() && run.id.find(match) == std::string::npos &&
          run.model_path.find(match) == std::string::npos && run.system.find(match) == std::string::npos &&
          run.backend != match) {
        return false;
      }
      return (*position)++ % every == 0;
    };
  }
  if (!scenarios.empty()) {
    // Each mapped row's scenario as DIR/ID.json, what `fleetcast simulate` and `fleetcast step` read: the way to
    // look at what a row became.
    std::error_code ec;
    std::filesystem::create_directories(scenarios, ec);
    if (ec) throw InputError("", "--scenarios", scenarios, "cannot create the directory: " + ec.message());
    options.mapped = [scenarios](const traces::MeasuredServingRun& run, const nlohmann::json& scenario) {
      std::string name = run.id;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
      }
      write_file_atomically(std::filesystem::path(scenarios) / (name + ".json"), scenario.dump(2) + "\n");
    };
  }
  if (progress_json) {
    options.progress = [](std::size_t done, std::size_t total) {
      std::fprintf(stderr, "{\"phase\":\"validate\",\"done\":%zu,\"total\":%zu}\n", done, total);
    };
  }
  const validation::ValidationResult result = validation::validate_runs(results, options);
  if (!summary_only) print_rows(result, silicon.empty());
  const std::vector<ProfileInUse> profiles = profiles_in_use(result);
  print_groups(result);
  print_percentiles(result, summary_only);
  print_unmapped(result);
  print_prompt_compute(result);
  print_held_back(result);
  print_profiles(profiles);
  Decompositions splits;
  if (decompose) {
    splits = cli::decompose(result);
    print_decompositions(splits);
  }
  if (!markdown.empty()) {
    write_file_atomically(markdown, markdown_groups(result, profiles) + markdown_decompositions(splits));
  }
  if (!accuracy.empty()) {
    const std::string csv = std::filesystem::path(silicon).filename().string();
    write_accuracy(accuracy, existing_accuracy, result,
                   unfitted ? "fleetcast --unfitted-profiles validate --silicon " + csv +
                                  " --accuracy FILE: every GPU given the profile it would take without a fit of its "
                                  "own (its datasheet profile with the figures the other GPUs' fits carry), all its "
                                  "runs scored"
                            : "fleetcast [--datasheet-profiles] validate --silicon " + csv +
                                  " --split held-out --accuracy FILE (each profile kind from a run that used it): the "
                                  "error on the rows `calibrate serving` never fits",
                   accuracy_schema);
  }
  if (!json_out.empty()) {
    nlohmann::json j = validation::to_json(result);
    j["profiles"] = profiles_json(profiles);
    if (decompose) {
      j["tpot_decomposition"] = validation::to_json(splits.tpot);
      j["ttft_decomposition"] = validation::to_json(splits.ttft);
    }
    write_file_atomically(json_out, j.dump(1) + "\n");
  }
  return 0;
}

}  // namespace fleetcast::cli
