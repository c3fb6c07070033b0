// `fleetcast calibrate serving --silicon FILE`: fit each (hardware, runtime) profile's few parameters to the
// measured runs of a silicon CSV, report the error before and after on fitted and held-out rows, and write
// the fitted profiles (calibration/profiles/<hardware>-<runtime>.json is where shipped ones live).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <variant>

#include "atomic_file.hpp"
#include "bench_input.hpp"
#include "client_mapping_flag.hpp"
#include "commands.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/validation/marginal_prompt_ratio.hpp"
#include "fleetcast/validation/serving_fit.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "number_arg.hpp"

namespace fleetcast::cli {
namespace {

constexpr const char* kAccuracyHow =
    "fleetcast --datasheet-profiles calibrate serving --silicon silicon-dev.csv --hardware H --runtime R RECIPE "
    "--cross-validate --accuracy FILE: each model of the pair's aggregated runs left out in turn, the pair refitted "
    "from the datasheet profile on the others, the left-out model's runs scored by the fast replay (fit: the refit, "
    "as a forecast of that model would use it; datasheet: the datasheet profile)";

// The fit's options that differ from the defaults, as the command line gives them.
std::string recipe_text(const validation::ServingFitOptions& o) {
  const validation::ServingFitOptions d;
  std::string text = "--train-rows " + std::to_string(o.max_train_rows);
  if (o.max_iterations != d.max_iterations) text += " --iterations " + std::to_string(o.max_iterations);
  if (o.bounded) text += " --bounded";
  if (o.robust) text += " --robust";
  if (o.client_mapping == traces::CsvClientMapping::as_run) text += " --benchmark-clients";
  if (o.client_mapping == traces::CsvClientMapping::fixed_lengths) text += " --fixed-lengths";
  if (!o.fit_experts) text += " --no-experts";
  if (o.fit_expert_memory) text += " --expert-memory";
  if (o.fit_eager_launch) text += " --eager-launch";
  if (o.prompt_slowdown) text += " --prompt-slowdown";
  if (o.from_datasheet) text += " --from-datasheet";
  if (!o.model_kind.empty()) text += " --models " + o.model_kind;
  if (o.max_step_overhead_s != d.max_step_overhead_s)
    text += " --max-step-ms " + std::to_string(1e3 * o.max_step_overhead_s);
  if (o.ttft_weight != d.ttft_weight) text += " --ttft-weight " + std::to_string(o.ttft_weight);
  return text;
}

// The TTFT splits (validation/ttft_decomposition.hpp) of every aggregated run of `pairs`, simulated with the datasheet
// profiles as `calibrate prompt-ratio` measures them.
std::vector<validation::TtftDecomposition> ttft_splits_with_datasheet_profiles(
    const traces::MeasuredServingResults& results,
    const std::map<std::pair<std::string, std::string>, std::set<std::string>>& pairs) {
  validation::ValidateOptions v;
  v.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  v.select = [&](const traces::MeasuredServingRun& run) {
    auto m = validation::map_serving_run(run);
    const auto* mapped = std::get_if<validation::MappedRun>(&m);
    return mapped && run.mode == "agg" &&
           pairs.count({mapped->scenario["deployment"]["hardware"].get<std::string>(), run.backend});
  };
  std::printf("measuring each fold's prompt ratio: the pairs' runs under the datasheet profiles\n");
  std::fflush(stdout);
  return validation::datasheet_ttft_splits(results, v);
}

// The marginal prompt ratio by kind of model of (hardware, runtime) without `model`'s runs, as `calibrate prompt-ratio`
// reads it by default: what a fit that never saw the model would keep.
std::map<std::string, double> prompt_ratio_without(const std::vector<validation::TtftDecomposition>& splits,
                                                   const std::string& hardware, const std::string& runtime,
                                                   const std::string& model) {
  std::map<std::string, double> by_kind;
  for (const auto& r : validation::marginal_prompt_ratios(splits, validation::kPromptRatioMaxClients,
                                                          validation::kPromptRatioMinPrompt, model)) {
    if (r.hardware == hardware && r.runtime == runtime) by_kind[r.model_kind] = r.median;
  }
  return by_kind;
}

// The table in FILE, or none when FILE does not exist; a file that is not such a table is named, not replaced.
std::vector<calibration::UnseenModelAccuracy> read_unseen_model_table(const std::string& file) {
  if (!std::filesystem::exists(file)) return {};
  std::ifstream in(file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) throw InputError(file, "", "", "not JSON: the table is merged into, not replaced");
  return calibration::parse_unseen_model_table(j, file);
}

}  // namespace

int run_calibrate_serving(const Args& args) {
  const std::string usage_text =
      "usage: fleetcast calibrate serving (--silicon FILE [--hardware H --runtime R] | --bench FILE... --hardware H "
      "[--runtime R] [--tp N] [--pp N] [--dp N] [--ep N] [--model M] [--precision P] [--max-num-seqs N] "
      "[--server-args CMD] [--server-config YAML] [--acceptance-length L]) [-o DIR] [--train-rows N] "
      "[--iterations N] [--bounded] [--robust] [--fixed-lengths | --benchmark-clients] [--refine | --from-datasheet] "
      "[--no-experts] "
      "[--expert-memory] "
      "[--eager-launch] [--prompt-slowdown] "
      "[--models dense|moe] [--max-step-ms X] [--ttft-weight W] [--leave-out-model M | --cross-validate [--accuracy "
      "FILE]]";
  std::string silicon, hardware, runtime, out_dir, accuracy_file;
  validation::ServingFitOptions options;
  bool cross_validate = false;
  ClientMappingFlag clients;
  BenchInput bench;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    // --hardware and --runtime name the pair to fit, and for benchmark files the deployment too.
    if (bench.take(args, i)) continue;
    if (a == "--bounded") {
      options.bounded = true;
      continue;
    }
    if (a == "--robust") {
      options.robust = true;
      continue;
    }
    if (a == "--refine") {
      options.refine = true;
      continue;
    }
    if (a == "--no-experts") {
      options.fit_experts = false;
      continue;
    }
    if (a == "--expert-memory") {
      options.fit_expert_memory = true;
      continue;
    }
    if (a == "--eager-launch") {
      options.fit_eager_launch = true;
      continue;
    }
    if (a == "--from-datasheet") {
      options.from_datasheet = true;
      continue;
    }
    if (a == "--prompt-slowdown") {
      options.prompt_slowdown = true;
      continue;
    }
    if (a == "--cross-validate") {
      cross_validate = true;
      continue;
    }
    if (clients.take(a)) continue;
    if (i + 1 >= args.size()) throw InputError("", "calibrate serving", a, usage_text);
    if (a == "--silicon") {
      silicon = args[++i];
    } else if (a == "-o") {
      out_dir = args[++i];
    } else if (a == "--train-rows") {
      options.max_train_rows = std::stoi(args[++i]);
      if (options.max_train_rows < 6) throw InputError("", "--train-rows", args[i], "must be >= 6");
    } else if (a == "--accuracy") {
      accuracy_file = args[++i];
    } else if (a == "--leave-out-model") {
      options.leave_out_model = args[++i];
    } else if (a == "--models") {
      options.model_kind = args[++i];
      if (!calibration::is_architecture(options.model_kind))
        throw InputError("", "--models", options.model_kind, "expected dense or moe");
    } else if (a == "--max-step-ms") {
      const std::string& text = args[++i];
      const auto ms = whole_text_number(text);
      if (!ms || !(*ms >= 0.01 && *ms <= 100.0)) {
        throw InputError("", "--max-step-ms", text, "expected milliseconds between 0.01 and 100");
      }
      options.max_step_overhead_s = *ms * 1e-3;
    } else if (a == "--ttft-weight") {
      const std::string& text = args[++i];
      const auto w = whole_text_number(text);
      if (!w || !(*w > 0.0 && *w <= 1.0)) throw InputError("", "--ttft-weight", text, "expected a weight in (0, 1]");
      options.ttft_weight = *w;
    } else if (a == "--iterations") {
      options.max_iterations = std::stoi(args[++i]);
      if (options.max_iterations < 0) throw InputError("", "--iterations", args[i], "must be >= 0");
    } else {
      throw InputError("", "calibrate serving", a, usage_text);
    }
  }
  if (silicon.empty() == bench.files.empty()) {
    throw InputError("", "calibrate serving", "", "give either --silicon FILE or --bench FILE...; " + usage_text);
  }
  if (!silicon.empty() && (bench.has_launch() || bench.layout_flags.tp || !bench.given.model.empty())) {
    throw InputError("", "calibrate serving", silicon,
                     "a silicon CSV's rows carry their own deployment; the deployment flags go with --bench files");
  }
  hardware = bench.given.hardware;
  runtime = bench.given.runtime;
  if (!bench.files.empty()) {
    // The files' runs say their pair once mapped (a GPU spelt h200_sxm is the h200 preset): every pair they hold.
    if (hardware.empty()) throw InputError("", "--hardware", "", "which GPU the benchmark files measured");
    hardware.clear();
    runtime.clear();
  }
  if (hardware.empty() != runtime.empty()) {
    throw InputError("", "calibrate serving", hardware + runtime, "give both --hardware and --runtime, or neither");
  }
  if (!out_dir.empty() && options.max_iterations == 0) {
    throw InputError("", "--iterations", "0", "fits nothing, so there is no profile to write with -o");
  }
  if (cross_validate && (!options.leave_out_model.empty() || !out_dir.empty())) {
    throw InputError("", "--cross-validate", "", "leaves out each model in turn: not with --leave-out-model or -o");
  }
  if (!accuracy_file.empty() && !cross_validate) {
    throw InputError("", "--accuracy", accuracy_file, "records the models left out: give --cross-validate too");
  }
  if (!out_dir.empty() && !std::filesystem::is_directory(out_dir)) {
    throw InputError("", "-o", out_dir, "not a directory");
  }
  if (!accuracy_file.empty()) read_unseen_model_table(accuracy_file);  // a bad table is named before hours of fits
  auto results = silicon.empty() ? bench.read(false) : traces::read_silicon_csv(silicon);
  clients.apply(results, !silicon.empty());
  // Benchmark files state their own lengths: no mapping to name in the fitted sources.
  options.client_mapping = silicon.empty() ? std::nullopt : std::optional(clients.mapping());
  // The (hardware, runtime) pairs of the aggregated rows that map, each with its models (for --cross-validate).
  std::map<std::pair<std::string, std::string>, std::set<std::string>> pairs;
  for (const auto& run : results.runs) {
    auto m = validation::map_serving_run(run);
    if (auto* mapped = std::get_if<validation::MappedRun>(&m); mapped && run.mode == "agg") {
      pairs[{mapped->scenario["deployment"]["hardware"].get<std::string>(), run.backend}].insert(
          validation::serving_run_model(run));
    }
  }
  if (!hardware.empty()) pairs = {{{hardware, runtime}, pairs[{hardware, runtime}]}};
  // A fit in use was made on every model's runs, the left-out ones' too, so neither its descent nor its "before"
  // figures may enter a record of what an unseen model gets: refused for every pair before any is fitted.
  for (const auto& [pair, models] : pairs) {
    if (!accuracy_file.empty() &&
        calibration::profile_for(specs::hardware_preset(pair.first), pair.second).kind != "datasheet") {
      throw InputError("", "--accuracy", accuracy_file,
                       pair.first + " " + pair.second +
                           " has a fit in use, made on the models left out too: run `fleetcast "
                           "--datasheet-profiles calibrate serving ...`");
    }
    // The slowdown is measured, not fitted: a pair with no measured ratio has nothing to keep fixed (a cross-validation
    // measures its own, below).
    if (options.prompt_slowdown && !cross_validate &&
        calibration::profile_for(specs::hardware_preset(pair.first), pair.second).marginal_prompt_ratio.empty()) {
      throw InputError("", "--prompt-slowdown", pair.first + " " + pair.second,
                       "the pair's profile in use has no measured marginal prompt ratio (marginal_prompt_ratio): run "
                       "`fleetcast calibrate prompt-ratio --silicon FILE --profiles DIR` and give "
                       "FLEETCAST_PROFILE_DIR=DIR");
    }
  }
  std::printf("%-8s %-7s %-16s %5s %5s | %-22s | %-22s | %s\n", "hardware", "runtime", "left out", "train", "held",
              "train TTFT/TPOT med", "held-out TTFT/TPOT med",
              "fitted: bf16 gemm, attn, mem, step ms, nvlink, seq us, req ms, experts");
  const auto fit_and_print = [&](const std::string& hw, const std::string& rt,
                                 const validation::ServingFitOptions& o) -> std::optional<validation::ServingFit> {
    const std::string left_out = o.leave_out_model.empty() ? "1 in 5 by id" : o.leave_out_model;
    validation::ServingFit fit;
    try {
      fit = validation::fit_serving_profile(results, hw, rt, o);
    } catch (const InputError& e) {
      std::printf("%-8s %-7s %-16s skipped: %s\n", hw.c_str(), rt.c_str(), left_out.c_str(), e.problem().c_str());
      return std::nullopt;
    }
    const auto& p = fit.profile;
    // "fp4 0.80 fp8 0.23": the experts' efficiency per weight format, "-" for dense rows only.
    const auto experts = [](const calibration::Profile& q) {
      std::string text;
      for (const auto& [format, eff] : q.expert_kernel_efficiency) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%s%s %.2f", text.empty() ? "" : " ", format.c_str(), eff);
        text += buf;
      }
      return text.empty() ? std::string("-") : text;
    };
    const double gemm_bf16 = p.matmul_efficiency.count("bf16") ? p.matmul_efficiency.at("bf16") : 0.0;
    std::printf(
        "%-8s %-7s %-16s %5d %5d | %4.0f%%/%3.0f%% -> %3.0f%%/%3.0f%% | %4.0f%%/%3.0f%% -> %3.0f%%/%3.0f%% | "
        "%.2f, %.2f, %.2f, %.2f, %.2f, %.1f, %.1f, %s\n",
        hw.c_str(), rt.c_str(), left_out.c_str(), fit.after_train.rows, fit.after_held_out.rows,
        100 * fit.before_train.ttft.median_ape, 100 * fit.before_train.tpot.median_ape,
        100 * fit.after_train.ttft.median_ape, 100 * fit.after_train.tpot.median_ape,
        100 * fit.before_held_out.ttft.median_ape, 100 * fit.before_held_out.tpot.median_ape,
        100 * fit.after_held_out.ttft.median_ape, 100 * fit.after_held_out.tpot.median_ape, gemm_bf16,
        p.attention_compute_efficiency, p.memory_efficiency, 1e3 * p.step_overhead_s, p.nvlink_efficiency,
        1e6 * p.sequence_overhead_s, 1e3 * p.request_overhead_s, experts(p).c_str());
    std::string trained_on;
    for (const auto& [model, n] : fit.train_rows_by_model)
      trained_on += (trained_on.empty() ? "" : ", ") + model + " (" + std::to_string(n) + ")";
    std::printf("%-8s %-7s   training rows by model: %s\n", hw.c_str(), rt.c_str(), trained_on.c_str());
    for (const calibration::KernelCaveat& c : fit.caveats) {
      std::printf("%-8s %-7s   outside the kernel-level figures: %s\n", hw.c_str(), rt.c_str(),
                  calibration::describe(c).c_str());
    }
    std::fflush(stdout);
    if (!out_dir.empty()) {
      // A fit for one kind of model beside the pair's: h200-vllm-dense.json.
      const std::string kind = o.model_kind.empty() ? "" : "-" + o.model_kind;
      const auto path = std::filesystem::path(out_dir) / (hw + "-" + rt + kind + ".json");
      write_file_atomically(path, calibration::to_json(p).dump(2) + "\n");
    }
    return fit;
  };
  // The pair's measured prompt ratio was measured on every model's runs, the left-out one's too: a cross-validation
  // measures it again for each fold without that model's (the TTFT splits under the datasheet profiles, once).
  std::vector<validation::TtftDecomposition> prompt_splits;
  if (cross_validate && options.prompt_slowdown) prompt_splits = ttft_splits_with_datasheet_profiles(results, pairs);
  for (const auto& [pair, models] : pairs) {
    const auto& [hw, rt] = pair;
    if (!cross_validate) {
      fit_and_print(hw, rt, options);
      continue;
    }
    // Each model of the pair in turn is the held-out set: the error on a model the fit never saw.
    calibration::UnseenModelAccuracy record{hw, rt, recipe_text(options), {}};
    for (const std::string& model : models) {
      // Under --models, the other kind's models have no rows in the fit to leave out.
      if (!options.model_kind.empty() && calibration::architecture_of(specs::model_preset(model)) != options.model_kind)
        continue;
      validation::ServingFitOptions o = options;
      o.leave_out_model = model;
      if (options.prompt_slowdown) {
        o.measured_prompt_ratio = prompt_ratio_without(prompt_splits, hw, rt, model);
        std::string ratios;
        for (const auto& [kind, ratio] : *o.measured_prompt_ratio)
          ratios += (ratios.empty() ? "" : ", ") + kind + " " + std::to_string(ratio).substr(0, 4);
        std::printf("%-8s %-7s   prompt ratio without %s: %s\n", hw.c_str(), rt.c_str(), model.c_str(),
                    ratios.empty() ? "none measured (prompts not slowed)" : ratios.c_str());
      }
      const auto fit = fit_and_print(hw, rt, o);
      if (!fit || fit->after_held_out.rows == 0) continue;
      calibration::LeftOutModel fold;
      fold.model = model;
      fold.rows = fit->after_held_out.rows;
      for (const auto& [trained, n] : fit->train_rows_by_model) fold.trained_on.push_back(trained);
      fold.fit_ttft = fit->after_held_out.ttft;
      fold.fit_tpot = fit->after_held_out.tpot;
      fold.datasheet_ttft = fit->before_held_out.ttft;
      fold.datasheet_tpot = fit->before_held_out.tpot;
      record.folds.push_back(std::move(fold));
    }
    if (!accuracy_file.empty() && !record.folds.empty()) {
      // Read again for each pair, so that runs of other pairs writing the same file at other times keep theirs.
      write_file_atomically(
          accuracy_file,
          calibration::merge_unseen_model_table(read_unseen_model_table(accuracy_file), record, kAccuracyHow).dump(2) +
              "\n");
    }
  }
  return 0;
}

}  // namespace fleetcast::cli
