#pragma once
// How wrong a forecast on a GPU without a fit of its own is: GB200 and GB300 today, or a user's own hardware spec.
// Such a GPU takes its datasheet profile with the figures its runtime's fits on other GPUs carry
// (profile_store.hpp, profile_without_own_fit), and its held-out error is on record nowhere. The nearest measurement:
// give every GPU with measured runs that very pick, its own fit left out, and score all its runs, none of which
// shaped the pick (`fleetcast --unfitted-profiles validate --silicon FILE --accuracy FILE`, full simulations). The
// table is calibration/profiles/accuracy/unfitted-gpus.json (schema fleetcast.unfitted-gpu-accuracy/2, entries as
// measured_accuracy.hpp's, one per GPU, runtime and kind of model), compiled in; a forecast made with such a pick
// carries the spread over those GPUs' runs of its kind of model, dense or MoE (docs/ACCURACY.md, "What a forecast on
// a GPU without a fit can expect").

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/hardware.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::calibration {

// The shipped table, one entry per (GPU, runtime, dense or MoE) scored with the pick it would get without its fit.
const std::vector<PairAccuracy>& shipped_unfitted_gpu_accuracy();

struct UnfittedGpuError {
  std::string hardware, runtime;  // the forecast's
  std::vector<std::string> gpus;  // the GPUs whose runs were scored with their pick, sorted
  int rows = 0;                   // runs scored over them
  ErrorSpread ttft, tpot;         // over those GPUs, of each one's median APE
  std::string architecture;       // the kind of model those runs served, the forecast's ("" in reports before it)
  // The forecast GPU's maker ("AMD", specs::vendor_of_arch) where none of the scored GPUs is its (they are all NVIDIA's
  // today): that maker's own kernels and engine builds never shaped this figure. "" where one is, or the maker is
  // unknown.
  std::string unscored_vendor;
  // The forecast GPU's scale-up fabric ("pcie", "mesh": HardwareSpec::scale_up_topology) where none of the scored GPUs
  // is joined that way (they all sit behind NVSwitch today): how its collectives fall short never shaped this figure.
  std::string unscored_scale_up;
};

// The figures a forecast of a model of `architecture` (architecture_of) made with `in_use` on `hardware` under
// `runtime` carries: none unless `in_use` is exactly the pick a GPU without a fit gets (profile_without_own_fit; not a
// fit, a user's profile, or a datasheet profile without the carried figures as --datasheet-profiles gives it). Of
// `table`, the entries of `runtime` and of the model's kind (dense or MoE) whose fingerprint is still their GPU's pick
// count: a refit that moves the carried figures, or a changed datasheet profile, leaves an entry stale and unused until
// the table is written again.
std::optional<UnfittedGpuError> unfitted_gpu_error_for(const specs::HardwareSpec& hardware, const Profile& in_use,
                                                       const std::string& runtime, const std::string& architecture,
                                                       const std::vector<PairAccuracy>& table);
std::optional<UnfittedGpuError> unfitted_gpu_error_for(const specs::HardwareSpec& hardware, const Profile& in_use,
                                                       const std::string& runtime, const std::string& architecture);
// As to_json writes it, or null: the form reports carry (derived.profile_unfitted_gpu_error).
nlohmann::json to_json(const UnfittedGpuError& e);
nlohmann::json unfitted_gpu_error_json(const specs::HardwareSpec& hardware, const Profile& in_use,
                                       const std::string& runtime, const specs::ModelSpec& model);
// Strict as to_json writes it; `architecture` may be absent (a report written before the table scored dense and MoE
// models apart: the figure over every model).
UnfittedGpuError parse_unfitted_gpu_error(const nlohmann::json& j, const std::string& file, const std::string& at);

// "as a GPU without a fit: TTFT off by a median 22% (19-28% by GPU, predicted/measured 0.98x), TPOT 14% (10-20%,
// 1.03x) on the measured runs of MoE models on b200, b300, h100, h200 vllm, each given this pick instead of its own
// fit (804 runs)"; with ", none of them AMD's: ..." where unscored_vendor is set and ", none of them on a pcie
// scale-up: ..." where unscored_scale_up is.
std::string describe(const UnfittedGpuError& e);

}  // namespace fleetcast::calibration
