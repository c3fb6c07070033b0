// `fleetcast calibrate serving --silicon FILE`: fit each (hardware, runtime) profile's few parameters to the
// measured runs of a silicon CSV, report the error before and after on fitted and held-out rows, and write
// the fitted profiles (calibration/profiles/<hardware>-<runtime>.json is where shipped ones live).
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/validation/serving_fit.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "number_arg.hpp"

namespace fleetcast::cli {

int run_calibrate_serving(const Args& args) {
  const std::string usage_text =
      "usage: fleetcast calibrate serving --silicon FILE [--hardware H --runtime R] [-o DIR] [--train-rows N] "
      "[--iterations N] [--bounded] [--robust] [--benchmark-clients] [--refine] [--no-experts] [--max-step-ms X] "
      "[--ttft-weight W] [--leave-out-model M | --cross-validate]";
  std::string silicon, hardware, runtime, out_dir;
  validation::ServingFitOptions options;
  bool cross_validate = false, benchmark_clients = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
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
    if (a == "--cross-validate") {
      cross_validate = true;
      continue;
    }
    if (a == "--benchmark-clients") {
      benchmark_clients = true;
      continue;
    }
    if (i + 1 >= args.size()) throw InputError("", "calibrate serving", a, usage_text);
    if (a == "--silicon") {
      silicon = args[++i];
    } else if (a == "--hardware") {
      hardware = args[++i];
    } else if (a == "--runtime") {
      runtime = args[++i];
    } else if (a == "-o") {
      out_dir = args[++i];
    } else if (a == "--train-rows") {
      options.max_train_rows = std::stoi(args[++i]);
      if (options.max_train_rows < 6) throw InputError("", "--train-rows", args[i], "must be >= 6");
    } else if (a == "--leave-out-model") {
      options.leave_out_model = args[++i];
    } else if (a == "--max-step-ms") {
      const std::string& text = args[++i];
      const auto ms = parse_number(text);
      if (!ms || !(*ms >= 0.01 && *ms <= 100.0)) {
        throw InputError("", "--max-step-ms", text, "expected milliseconds between 0.01 and 100");
      }
      options.max_step_overhead_s = *ms * 1e-3;
    } else if (a == "--ttft-weight") {
      const std::string& text = args[++i];
      const auto w = parse_number(text);
      if (!w || !(*w > 0.0 && *w <= 1.0)) throw InputError("", "--ttft-weight", text, "expected a weight in (0, 1]");
      options.ttft_weight = *w;
    } else if (a == "--iterations") {
      options.max_iterations = std::stoi(args[++i]);
      if (options.max_iterations < 0) throw InputError("", "--iterations", args[i], "must be >= 0");
    } else {
      throw InputError("", "calibrate serving", a, usage_text);
    }
  }
  if (silicon.empty()) throw InputError("", "calibrate serving", "", "--silicon FILE is required; " + usage_text);
  if (hardware.empty() != runtime.empty()) {
    throw InputError("", "calibrate serving", hardware + runtime, "give both --hardware and --runtime, or neither");
  }
  if (!out_dir.empty() && options.max_iterations == 0) {
    throw InputError("", "--iterations", "0", "fits nothing, so there is no profile to write with -o");
  }
  if (cross_validate && (!options.leave_out_model.empty() || !out_dir.empty())) {
    throw InputError("", "--cross-validate", "", "leaves out each model in turn: not with --leave-out-model or -o");
  }
  if (!out_dir.empty() && !std::filesystem::is_directory(out_dir)) {
    throw InputError("", "-o", out_dir, "not a directory");
  }
  auto results = traces::read_silicon_csv(silicon);
  if (!benchmark_clients) traces::forget_benchmark_clients(results);
  options.benchmark_clients = benchmark_clients;
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
  std::printf("%-8s %-7s %-16s %5s %5s | %-22s | %-22s | %s\n", "hardware", "runtime", "left out", "train", "held",
              "train TTFT/TPOT med", "held-out TTFT/TPOT med",
              "fitted: bf16 gemm, attn, mem, step ms, nvlink, seq us, req ms, experts");
  const auto fit_and_print = [&](const std::string& hw, const std::string& rt, const validation::ServingFitOptions& o) {
    const std::string left_out = o.leave_out_model.empty() ? "1 in 5 by id" : o.leave_out_model;
    validation::ServingFit fit;
    try {
      fit = validation::fit_serving_profile(results, hw, rt, o);
    } catch (const InputError& e) {
      std::printf("%-8s %-7s %-16s skipped: %s\n", hw.c_str(), rt.c_str(), left_out.c_str(), e.problem().c_str());
      return;
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
        100 * fit.before_train.ttft_median_ape, 100 * fit.before_train.tpot_median_ape,
        100 * fit.after_train.ttft_median_ape, 100 * fit.after_train.tpot_median_ape,
        100 * fit.before_held_out.ttft_median_ape, 100 * fit.before_held_out.tpot_median_ape,
        100 * fit.after_held_out.ttft_median_ape, 100 * fit.after_held_out.tpot_median_ape, gemm_bf16,
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
      const auto path = std::filesystem::path(out_dir) / (hw + "-" + rt + ".json");
      write_file_atomically(path, calibration::to_json(p).dump(2) + "\n");
    }
  };
  for (const auto& [pair, models] : pairs) {
    const auto& [hw, rt] = pair;
    if (!cross_validate) {
      fit_and_print(hw, rt, options);
      continue;
    }
    // Each model of the pair in turn is the held-out set: the error on a model the fit never saw.
    for (const std::string& model : models) {
      validation::ServingFitOptions o = options;
      o.leave_out_model = model;
      fit_and_print(hw, rt, o);
    }
  }
  return 0;
}

}  // namespace fleetcast::cli
