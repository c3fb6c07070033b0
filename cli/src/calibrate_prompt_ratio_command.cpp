// `fleetcast calibrate prompt-ratio --silicon FILE`: how much longer each (GPU, runtime)'s engine takes for a longer
// prompt than the datasheet profile's step model says, by kind of model, from the TTFT splits of its measured runs
// (validation/marginal_prompt_ratio.hpp); written into the fitted profiles of a folder, whose runtime's median a GPU
// without a fit takes as its prompt slowdown (Profile::prompt_slowdown).
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include "client_mapping_flag.hpp"
#include "commands.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/validation/marginal_prompt_ratio.hpp"
#include "fleetcast/validation/ttft_decomposition.hpp"
#include "fleetcast/validation/validate_runs.hpp"
#include "number_arg.hpp"

namespace fleetcast::cli {
namespace {

const char* kUsage =
    "usage: fleetcast calibrate prompt-ratio --silicon FILE [--fixed-lengths | --benchmark-clients] "
    "[--max-clients N] [--min-prompt TOKENS] [-j N] [--profiles DIR]";

using Ratios = std::vector<validation::MarginalPromptRatio>;

std::string describe(const validation::MarginalPromptRatio& r) {
  std::ostringstream out;
  out.precision(3);
  out << r.model_kind << " " << r.median << " (" << r.ratios.size() << " splits, " << r.ratios.front() << "-"
      << r.ratios.back() << ")";
  return out.str();
}

// Each fitted profile of the whole (hardware, runtime) in `dir` with its measured ratios, or none where its pair has
// no split; every profile read before any is written, so a bad one leaves the folder as it was.
void write_ratios(const std::string& dir, const Ratios& ratios, const std::string& how) {
  std::vector<std::pair<std::filesystem::path, calibration::Profile>> updated;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    calibration::Profile p = calibration::read_profile(e.path());
    if (p.kind != "fitted" || !p.model_kind.empty()) continue;  // a fit for one kind of model does not carry
    std::map<std::string, double> by_kind;
    std::string measured;
    for (const auto& r : ratios) {
      if (r.hardware != p.hardware || r.runtime != p.runtime) continue;
      by_kind[r.model_kind] = r.median;
      measured += (measured.empty() ? "" : "; ") + describe(r);
    }
    if (by_kind == p.marginal_prompt_ratio) continue;
    p.marginal_prompt_ratio = by_kind;
    if (by_kind.empty()) {
      p.sources.erase("marginal_prompt_ratio");
    } else {
      p.sources["marginal_prompt_ratio"] =
          "measured: " + how +
          "; median over the splits of the TTFT's growth with the prompt measured over the "
          "datasheet profile's (" +
          measured + "); not applied here, carried to a GPU without a fit";
    }
    updated.emplace_back(e.path(), std::move(p));
  }
  for (const auto& [path, p] : updated) {
    calibration::write_profile(path, p);
    std::printf("wrote %s\n", path.string().c_str());
  }
}

}  // namespace

int run_calibrate_prompt_ratio(const Args& args) {
  std::string silicon, profiles;
  ClientMappingFlag clients;
  int max_clients = validation::kPromptRatioMaxClients, min_prompt = validation::kPromptRatioMinPrompt;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw InputError("", a, "", std::string("needs a value; ") + kUsage);
      return args[++i];
    };
    if (a == "--silicon") {
      silicon = value();
    } else if (a == "--profiles") {
      profiles = value();
    } else if (a == "--max-clients") {
      max_clients = whole_number_arg(a, value(), 1);
    } else if (a == "--min-prompt") {
      min_prompt = whole_number_arg(a, value(), 1);
    } else if (a == "-j" || a == "--jobs") {
      jobs = whole_number_arg(a, value(), 1);
    } else if (!clients.take(a)) {
      throw InputError("", "calibrate prompt-ratio", a, kUsage);
    }
  }
  if (silicon.empty())
    throw InputError("", "calibrate prompt-ratio", "", std::string("give --silicon FILE; ") + kUsage);
  std::error_code ec;
  if (!profiles.empty() && !std::filesystem::is_directory(profiles, ec)) {  // before minutes of simulation, not after
    throw InputError("", "--profiles", profiles, "not a folder of profiles");
  }
  // The ratio is against the kernel-level figures, the profile a GPU without a fit starts from.
  traces::MeasuredServingResults results = traces::read_silicon_csv(silicon, false);
  clients.apply(results, true);
  validation::ValidateOptions options;
  options.jobs = jobs;
  const Ratios ratios =
      validation::marginal_prompt_ratios(validation::datasheet_ttft_splits(results, options), max_clients, min_prompt);

  std::printf(
      "marginal prompt, measured over the datasheet profile's: splits at <= %d clients, prompts up to >= %d "
      "tokens\n",
      max_clients, min_prompt);
  std::printf("%-8s %-8s %-6s %6s %8s %8s %8s\n", "gpu", "runtime", "kind", "splits", "median", "min", "max");
  for (const auto& r : ratios) {
    std::printf("%-8s %-8s %-6s %6zu %8.2f %8.2f %8.2f\n", r.hardware.c_str(), r.runtime.c_str(), r.model_kind.c_str(),
                r.ratios.size(), r.median, r.ratios.front(), r.ratios.back());
  }
  if (!profiles.empty()) {
    const std::string how = "fleetcast calibrate prompt-ratio --silicon " +
                            std::filesystem::path(silicon).filename().string() +
                            (clients.given.empty() ? "" : " " + clients.given) + " --max-clients " +
                            std::to_string(max_clients) + " --min-prompt " + std::to_string(min_prompt);
    write_ratios(profiles, ratios, how);
  }
  return 0;
}

}  // namespace fleetcast::cli
