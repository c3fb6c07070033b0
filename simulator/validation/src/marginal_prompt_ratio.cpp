// Measured over predicted marginal prompt, by (GPU, runtime, kind of model) (marginal_prompt_ratio.hpp).
#include "fleetcast/validation/marginal_prompt_ratio.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "fleetcast/validation/validate_runs.hpp"

namespace fleetcast::validation {

std::vector<TtftDecomposition> datasheet_ttft_splits(const traces::MeasuredServingResults& results,
                                                     const ValidateOptions& options) {
  const char* before = std::getenv("FLEETCAST_PROFILES");
  const std::string saved = before ? before : "";
  setenv("FLEETCAST_PROFILES", "datasheet", 1);
  std::vector<TtftDecomposition> splits = decompose_ttft(validate_runs(results, options));
  if (before) {
    setenv("FLEETCAST_PROFILES", saved.c_str(), 1);
  } else {
    unsetenv("FLEETCAST_PROFILES");
  }
  return splits;
}

std::vector<MarginalPromptRatio> marginal_prompt_ratios(const std::vector<TtftDecomposition>& splits, int max_clients,
                                                        int min_longest_prompt, const std::string& leave_out_model) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> by_key;
  for (const TtftDecomposition& d : splits) {
    if (d.concurrency > max_clients || d.isls.empty() || d.isls.back() < min_longest_prompt) continue;
    if (d.measured_prompts <= 0.0 || d.predicted_prompts <= 0.0) continue;
    const std::vector<std::string> parts = serving_group_parts(d.group);
    if (parts.size() != 4 || parts[3] != "agg") continue;
    if (!specs::has_preset(specs::PresetKind::model, parts[0]) || parts[0] == leave_out_model) continue;
    const std::string kind = calibration::architecture_of(specs::model_preset(parts[0]));
    by_key[{parts[1], parts[2], kind}].push_back(d.measured_prompts / d.predicted_prompts);
  }
  std::vector<MarginalPromptRatio> out;
  for (auto& [key, ratios] : by_key) {
    MarginalPromptRatio r;
    std::tie(r.hardware, r.runtime, r.model_kind) = key;
    std::sort(ratios.begin(), ratios.end());
    r.median = summarise_errors(ratios).median;
    r.ratios = std::move(ratios);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace fleetcast::validation
