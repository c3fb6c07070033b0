// `fleetcast calibrate`: the profiles that turn datasheet peaks into achieved rates: show and write the
// datasheet ones, fit profiles from calibration traces, check their quality, import kernel timings from
// nsys and PyTorch-profiler files, and the composition check (docs/CALIBRATION.md).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "fleetcast/calibration/compose.hpp"
#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/calibration/held_out.hpp"
#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/kernel_import.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/model_scope.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/quality_report.hpp"
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"
#include "fleetcast/calibration/unseen_model_accuracy.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "number_arg.hpp"

namespace fleetcast::cli {
namespace {

const char* kUsage =
    "usage: fleetcast calibrate show HARDWARE|PROFILE.json [--runtime R] [--models dense|moe] | datasheet HARDWARE\n"
    "       | fit TRACE... [--hardware NAME] [--runtime R] -o PROFILE.json | check PROFILE.json [--threshold X]\n"
    "                [--trace HELD_OUT.jsonl]\n"
    "       | import FILE [--format nsys-kern-sum|nsys-trace|chrome] [--map PATTERNS.json] [--device NAME]\n"
    "                -o TRACE.jsonl\n"
    "       | compose TRACE.jsonl [--json] [--max-median-ape X] [--no-predictors]\n"
    "       | serving --silicon FILE [--hardware H --runtime R] [-o DIR] [--train-rows N]\n"
    "       | steps SCENARIO FPM.csv [--pool prefill|decode] [--json]\n"
    "       | prompt-ratio --silicon FILE [--fixed-lengths] [--max-clients N] [-j N] [--profiles DIR]";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "", "cannot open the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Positional arguments and "--name value" options; "--json" takes no value.
struct Parsed {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
};

Parsed parse(const Args& args, const std::vector<std::string>& valued, const std::vector<std::string>& flags) {
  Parsed p;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (std::find(flags.begin(), flags.end(), a) != flags.end()) {
      p.options[a] = "1";
    } else if (std::find(valued.begin(), valued.end(), a) != valued.end()) {
      if (i + 1 >= args.size()) throw InputError("", a, "", std::string("needs a value\n") + kUsage);
      p.options[a] = args[++i];
    } else if (a.rfind("--", 0) == 0) {
      throw InputError("", "calibrate " + args[0], a, std::string("unknown option\n") + kUsage);
    } else {
      p.positional.push_back(a);
    }
  }
  return p;
}

double parse_fraction(const std::string& option, const std::string& text) {
  if (const auto x = whole_text_number(text); x && *x > 0.0 && *x < 100.0) return *x;
  throw InputError("", option, text, "expected a fraction > 0 (0.15 = 15%)");
}

calibration::Profile profile_arg(const std::string& arg, const std::string& runtime) {
  if (std::filesystem::exists(arg) || arg.find(".json") != std::string::npos) return calibration::read_profile(arg);
  return calibration::profile_for(specs::hardware_preset(arg), runtime);
}

int run_fit(const Parsed& p) {
  if (p.positional.empty() || !p.options.count("-o")) throw InputError("", "calibrate fit", "", kUsage);
  std::vector<calibration::FitInput> inputs;
  for (const auto& f : p.positional) inputs.push_back(calibration::load_fit_input(f));
  calibration::FitOptions opt;
  if (p.options.count("--hardware")) opt.hardware = p.options.at("--hardware");
  if (p.options.count("--runtime")) opt.runtime = p.options.at("--runtime");
  const auto profile = calibration::fit_profile(inputs, opt);
  calibration::write_profile(p.options.at("-o"), profile);
  std::printf("fitted %s from %zu trace(s): %zu op predictors, %zu collectives -> %s\n", profile.hardware.c_str(),
              inputs.size(), profile.predictors.size(), profile.collectives.size(), p.options.at("-o").c_str());
  std::fputs(calibration::quality_report(profile, 0.15).table.c_str(), stdout);
  return 0;
}

int run_check(const Parsed& p) {
  if (p.positional.size() != 1) throw InputError("", "calibrate check", "", kUsage);
  const double threshold =
      p.options.count("--threshold") ? parse_fraction("--threshold", p.options.at("--threshold")) : 0.15;
  const auto profile = calibration::read_profile(p.positional[0]);
  std::fputs(calibration::quality_report(profile, threshold).table.c_str(), stdout);
  if (!p.options.count("--trace")) return 0;  // flagged ops are listed, not an error: the profile is still the best
  // Measurements the fit did not see: each op's median APE must be within the LOO max APE the profile reports.
  const auto in = calibration::load_fit_input(p.options.at("--trace"));
  const auto r = calibration::check_held_out(profile, in.trace, in.file);
  std::printf("held-out measurements of %s: %-22s %6s %9s %9s %12s %12s\n", in.file.c_str(), "op dtype", "points",
              "median", "max", "LOO median", "LOO max");
  bool all_within = !r.ops.empty();
  for (const auto& o : r.ops) {
    std::printf("  %-22s %6d %8.1f%% %8.1f%% %11.1f%% %11.1f%%  %s\n", (o.op + " " + o.dtype).c_str(), o.points,
                100.0 * o.median_ape, 100.0 * o.max_ape, 100.0 * o.reported_loo_median_ape,
                100.0 * o.reported_loo_max_ape, o.within ? "within" : "ABOVE the reported LOO max");
    all_within = all_within && o.within;
  }
  std::printf("%d measurement(s) without a predictor in the profile\n", r.unpredicted);
  if (!all_within) {
    std::fprintf(stderr, "held-out check failed: %s\n",
                 r.ops.empty() ? "no measurement the profile predicts" : "an op's median APE is above its LOO max");
    return 1;
  }
  return 0;
}

int run_import(const Parsed& p) {
  if (p.positional.size() != 1 || !p.options.count("-o")) throw InputError("", "calibrate import", "", kUsage);
  const std::string& file = p.positional[0];
  const std::string text = read_text(file);
  const auto format = p.options.count("--format") ? calibration::parse_kernel_format(p.options.at("--format"))
                                                  : calibration::detect_kernel_format(text, file);
  std::vector<calibration::KernelPattern> patterns;
  if (p.options.count("--map"))
    patterns = calibration::read_kernel_patterns(read_text(p.options.at("--map")), p.options.at("--map"));
  for (auto& d : calibration::default_kernel_patterns()) patterns.push_back(d);
  const std::string device = p.options.count("--device") ? p.options.at("--device") : "unknown";
  const auto r =
      calibration::import_kernels(calibration::read_kernel_timings(text, file, format), patterns, device, file);
  traces::write_calibration_trace(p.options.at("-o"), r.trace);
  std::printf("%zu kernel measurements -> %s\n", r.trace.measurements.size(), p.options.at("-o").c_str());
  for (const auto& [cls, n] : r.kernels)
    std::printf("  %-12s %4d kernels %9d launches\n", cls.c_str(), n, r.instances.at(cls));
  int launches = 0;
  for (const auto& [name, n] : r.unmapped) launches += n;
  std::printf("unmapped: %zu kernels, %d launches (add patterns with --map)\n", r.unmapped.size(), launches);
  for (const auto& [name, n] : r.unmapped) std::printf("  %7d  %s\n", n, name.substr(0, 160).c_str());
  return 0;
}

int run_compose(const Parsed& p) {
  if (p.positional.size() != 1) throw InputError("", "calibrate compose", "", kUsage);
  const auto r =
      calibration::compose_check(calibration::load_fit_input(p.positional[0]), !p.options.count("--no-predictors"));
  if (p.options.count("--json")) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : r.rows) {
      rows.push_back({{"model", row.model},
                      {"layers", row.layers},
                      {"phase", row.phase},
                      {"batch", row.batch},
                      {"context", row.context},
                      {"new_tokens", row.new_tokens},
                      {"measured_s", row.measured_s},
                      {"predicted_s", row.predicted_s},
                      {"ape", row.ape}});
    }
    const nlohmann::json j{
        {"hardware", r.hardware.name}, {"rows", rows}, {"median_ape", r.median_ape}, {"max_ape", r.max_ape}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("composition check on %s (profile fitted from the trace's ops)\n", r.hardware.name.c_str());
    std::printf("%-14s %6s %-8s %6s %8s %7s %13s %13s %7s\n", "model", "layers", "phase", "batch", "context", "tokens",
                "measured_ms", "predicted_ms", "APE");
    for (const auto& row : r.rows) {
      std::printf("%-14s %6d %-8s %6d %8d %7d %13.3f %13.3f %6.1f%%\n", row.model.c_str(), row.layers,
                  row.phase.c_str(), row.batch, row.context, row.new_tokens, row.measured_s * 1e3,
                  row.predicted_s * 1e3, 100.0 * row.ape);
    }
    std::printf("median APE %.1f%%, max APE %.1f%% over %zu steps\n", 100.0 * r.median_ape, 100.0 * r.max_ape,
                r.rows.size());
  }
  if (p.options.count("--max-median-ape") &&
      r.median_ape > parse_fraction("--max-median-ape", p.options.at("--max-median-ape"))) {
    std::fprintf(stderr, "composition check failed: median APE %.1f%% above %s\n", 100.0 * r.median_ape,
                 p.options.at("--max-median-ape").c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int run_calibrate(const Args& args) {
  if (args.empty()) throw InputError("", "calibrate", "", kUsage);
  const std::string& verb = args[0];
  if (verb == "fit") return run_fit(parse(args, {"-o", "--hardware", "--runtime"}, {}));
  if (verb == "check") return run_check(parse(args, {"--threshold", "--trace"}, {}));
  if (verb == "import") return run_import(parse(args, {"-o", "--format", "--map", "--device"}, {}));
  if (verb == "compose") return run_compose(parse(args, {"--max-median-ape"}, {"--json", "--no-predictors"}));
  if (verb == "serving") return run_calibrate_serving(args);
  if (verb == "steps") return run_calibrate_steps(args);
  if (verb == "prompt-ratio") return run_calibrate_prompt_ratio(args);
  if (verb == "show") {
    const Parsed p = parse(args, {"--runtime", "--models"}, {});
    if (p.positional.size() != 1) throw InputError("", "calibrate show", "", kUsage);
    const std::string runtime = p.options.count("--runtime") ? p.options.at("--runtime") : "vllm";
    // --models KIND: the pair's fit for that kind of model alone (Profile::model_kind), which its forecasts take.
    const std::string kind = p.options.count("--models") ? p.options.at("--models") : "";
    if (!kind.empty() && !calibration::is_architecture(kind))
      throw InputError("", "--models", kind, "expected dense or moe");
    std::optional<calibration::Profile> kind_fit;
    if (!kind.empty()) {
      kind_fit = calibration::kind_profile_for(specs::hardware_preset(p.positional[0]), runtime, kind);
      if (!kind_fit)
        throw InputError("", "--models", kind,
                         "no fit of " + p.positional[0] + " " + runtime + " is for " + kind +
                             " models alone; they take the pair's profile (calibrate show without --models)");
    }
    const calibration::Profile profile = kind_fit ? *kind_fit : profile_arg(p.positional[0], runtime);
    std::printf("%s\n", calibration::to_json(profile).dump(2).c_str());
    // On stderr, so that the JSON on stdout still parses: the figures a reader should not carry far from the rows
    // they were fitted to (calibration/kernel_caveats.hpp). A profile of hardware with no preset has none to compare.
    if (specs::has_preset(specs::PresetKind::hardware, profile.hardware)) {
      const specs::HardwareSpec hw = specs::hardware_preset(profile.hardware);
      for (const auto& c : calibration::kernel_caveats(profile, calibration::datasheet_profile_for(hw, runtime)))
        std::fprintf(stderr, "note: %s\n", calibration::describe(c).c_str());
    }
    if (calibration::fitted_on_moe_models_only(profile)) {
      std::string models;
      for (const auto& m : profile.fitted_models) models += (models.empty() ? "" : ", ") + m;
      std::fprintf(stderr,
                   "note: fitted on MoE models only (%s): a dense model takes the datasheet GEMM and attention rates "
                   "(docs/CALIBRATION.md, \"Where profiles come from\")\n",
                   models.c_str());
    }
    // And its error on record, for a dense model and for an MoE one (it does differently on the two, and no model is
    // named here): on held-out measured runs, where that exact profile's is on record; on models it was refitted
    // without (a forecast of a model outside fitted_models); and, for the pick of a GPU without a fit, how that pick
    // did on the GPUs with measured runs.
    const std::optional<specs::HardwareSpec> hw =
        specs::has_preset(specs::PresetKind::hardware, profile.hardware)
            ? std::optional<specs::HardwareSpec>(specs::hardware_preset(profile.hardware))
            : std::nullopt;
    for (const std::string architecture : {"dense", "moe"}) {
      if (!profile.model_kind.empty() && architecture != profile.model_kind) continue;  // a fit for the other kind
      // A kind of model with a fit of its own does not take this one: say where its figures are.
      if (profile.model_kind.empty() && hw && calibration::kind_profile_for(*hw, runtime, architecture)) {
        std::fprintf(
            stderr, "note: %s models take a fit of their own: `fleetcast calibrate show %s --runtime %s --models %s`\n",
            architecture.c_str(), profile.hardware.c_str(), runtime.c_str(), architecture.c_str());
        continue;
      }
      if (const auto measured = calibration::measured_accuracy_for(profile, runtime, architecture)) {
        std::fprintf(stderr, "note: measured on %s %s: %s\n", profile.hardware.c_str(), runtime.c_str(),
                     calibration::describe(*measured).c_str());
      }
      if (const auto unseen = calibration::unseen_model_error_for(profile, runtime, "", architecture))
        std::fprintf(stderr, "note: %s\n", calibration::describe(*unseen).c_str());
      if (!hw) continue;
      if (const auto unfitted = calibration::unfitted_gpu_error_for(*hw, profile, runtime, architecture))
        std::fprintf(stderr, "note: %s\n", calibration::describe(*unfitted).c_str());
    }
    return 0;
  }
  if (verb == "datasheet") {
    const Parsed p = parse(args, {}, {});
    if (p.positional.size() != 1) throw InputError("", "calibrate datasheet", "", kUsage);
    // For every runtime (""): datasheet figures do not depend on the serving engine.
    std::printf("%s\n",
                calibration::to_json(calibration::datasheet_profile(specs::hardware_preset(p.positional[0]), ""))
                    .dump(2)
                    .c_str());
    return 0;
  }
  throw InputError("", "calibrate", verb, std::string("unknown verb\n") + kUsage);
}

}  // namespace fleetcast::cli
