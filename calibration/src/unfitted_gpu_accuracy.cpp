// The table of fitted GPUs scored with the pick a GPU without a fit gets (unfitted_gpu_accuracy.hpp).
#include "fleetcast/calibration/unfitted_gpu_accuracy.hpp"

#include <algorithm>
#include <optional>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/specs/vendor.hpp"
#include "json_member.hpp"

namespace fleetcast::calibration {
namespace {

constexpr const char* kShippedName = "accuracy/unfitted-gpus";

using detail::member;

// Whether `entry` scored the pick its GPU would get today: its GPU a preset, and the fingerprints equal.
bool still_the_pick(const PairAccuracy& entry) {
  try {
    const Profile pick = profile_without_own_fit(specs::hardware_preset(entry.hardware), entry.runtime);
    return pick.kind == entry.profile_kind && profile_fingerprint(pick) == entry.profile_fingerprint;
  } catch (const InputError&) {
    return false;  // a GPU no longer among the presets
  }
}

// A scored GPU's preset; none when it is no longer a preset (its maker and fabric then match nothing).
std::optional<specs::HardwareSpec> preset_of(const std::string& name) {
  try {
    return specs::hardware_preset(name);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace

const std::vector<PairAccuracy>& shipped_unfitted_gpu_accuracy() {
  static const std::vector<PairAccuracy> table = compiled_in_accuracy_table(kShippedName, kUnfittedGpuAccuracySchema);
  return table;
}

std::optional<UnfittedGpuError> unfitted_gpu_error_for(const specs::HardwareSpec& hardware, const Profile& in_use,
                                                       const std::string& runtime, const std::string& architecture,
                                                       const std::vector<PairAccuracy>& table) {
  if (in_use.kind != "datasheet") return std::nullopt;
  if (profile_fingerprint(in_use) != profile_fingerprint(profile_without_own_fit(hardware, runtime)))
    return std::nullopt;
  UnfittedGpuError e;
  e.hardware = in_use.hardware;
  e.runtime = runtime;
  e.architecture = architecture;
  std::vector<const ErrorFigures*> ttft, tpot;
  for (const PairAccuracy& a : table) {
    if (a.runtime != runtime || a.architecture != e.architecture || !still_the_pick(a)) continue;
    e.gpus.push_back(a.hardware);
    e.rows += a.rows;
    ttft.push_back(&a.ttft);
    tpot.push_back(&a.tpot);
  }
  if (ttft.empty()) return std::nullopt;
  std::sort(e.gpus.begin(), e.gpus.end());
  const std::string vendor = specs::vendor_of_arch(hardware.arch);
  bool vendor_scored = false, scale_up_scored = false;
  for (const std::string& g : e.gpus) {
    if (const auto scored = preset_of(g)) {
      vendor_scored = vendor_scored || specs::vendor_of_arch(scored->arch) == vendor;
      scale_up_scored = scale_up_scored || scored->scale_up_topology == hardware.scale_up_topology;
    }
  }
  if (!vendor.empty() && !vendor_scored) e.unscored_vendor = vendor;
  if (!scale_up_scored) e.unscored_scale_up = hardware.scale_up_topology;
  e.ttft = spread_of(ttft);
  e.tpot = spread_of(tpot);
  return e;
}

std::optional<UnfittedGpuError> unfitted_gpu_error_for(const specs::HardwareSpec& hardware, const Profile& in_use,
                                                       const std::string& runtime, const std::string& architecture) {
  return unfitted_gpu_error_for(hardware, in_use, runtime, architecture, shipped_unfitted_gpu_accuracy());
}

nlohmann::json to_json(const UnfittedGpuError& e) {
  nlohmann::json j = {{"hardware", e.hardware}, {"runtime", e.runtime},    {"gpus", e.gpus},
                      {"rows", e.rows},         {"ttft", to_json(e.ttft)}, {"tpot", to_json(e.tpot)}};
  if (!e.architecture.empty()) j["architecture"] = e.architecture;
  if (!e.unscored_vendor.empty()) j["unscored_vendor"] = e.unscored_vendor;
  if (!e.unscored_scale_up.empty()) j["unscored_scale_up"] = e.unscored_scale_up;
  return j;
}

nlohmann::json unfitted_gpu_error_json(const specs::HardwareSpec& hardware, const Profile& in_use,
                                       const std::string& runtime, const specs::ModelSpec& model) {
  const auto e = unfitted_gpu_error_for(hardware, in_use, runtime, architecture_of(model));
  return e ? to_json(*e) : nlohmann::json(nullptr);
}

UnfittedGpuError parse_unfitted_gpu_error(const nlohmann::json& j, const std::string& file, const std::string& at) {
  UnfittedGpuError e;
  e.hardware = member(j, "hardware", file, at, &nlohmann::json::is_string).get<std::string>();
  e.runtime = member(j, "runtime", file, at, &nlohmann::json::is_string).get<std::string>();
  for (const auto& g : member(j, "gpus", file, at, &nlohmann::json::is_array)) {
    if (!g.is_string()) throw InputError(file, at + "gpus", g.dump(), "GPU names are strings");
    e.gpus.push_back(g.get<std::string>());
  }
  if (e.gpus.empty()) throw InputError(file, at + "gpus", "[]", "at least one GPU scored");
  e.rows = member(j, "rows", file, at, &nlohmann::json::is_number_integer).get<int>();
  if (e.rows < 1) throw InputError(file, at + "rows", std::to_string(e.rows), "at least one run scored");
  e.ttft = parse_error_spread(member(j, "ttft", file, at, &nlohmann::json::is_object), file, at + "ttft.");
  e.tpot = parse_error_spread(member(j, "tpot", file, at, &nlohmann::json::is_object), file, at + "tpot.");
  e.architecture = parse_architecture(j, file, at);
  if (j.contains("unscored_vendor")) {
    e.unscored_vendor = member(j, "unscored_vendor", file, at, &nlohmann::json::is_string).get<std::string>();
  }
  if (j.contains("unscored_scale_up")) {
    e.unscored_scale_up = member(j, "unscored_scale_up", file, at, &nlohmann::json::is_string).get<std::string>();
  }
  return e;
}

std::string describe(const UnfittedGpuError& e) {
  std::string gpus;
  for (const std::string& g : e.gpus) gpus += (gpus.empty() ? "" : ", ") + g;
  const std::string models = e.architecture == "moe"     ? "MoE models on "
                             : e.architecture == "dense" ? "dense models on "
                                                         : "";
  return "as a GPU without a fit: " + describe(e.ttft, e.tpot, "GPU") + " on the measured runs of " + models + gpus +
         " " + e.runtime + ", each given this pick instead of its own fit (" + std::to_string(e.rows) + " runs)" +
         (e.unscored_vendor.empty() ? ""
                                    : ", none of them " + e.unscored_vendor + "'s: how " + e.unscored_vendor +
                                          "'s own kernels and engine builds fall short is not in this figure") +
         (e.unscored_scale_up.empty() ? ""
                                      : ", none of them on a " + e.unscored_scale_up +
                                            " scale-up: how its collectives fall short is not in this figure");
}

}  // namespace fleetcast::calibration
