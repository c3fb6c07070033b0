#pragma once
// Profiles as files: the JSON schema (owned here), the profiles shipped in calibration/profiles/ (datasheet),
// calibration/profiles/fitted/ (fitted from traces) and calibration/profiles/serving/ (fitted to measured serving
// runs per (hardware, runtime)) compiled in, the profiles of the folder
// FLEETCAST_PROFILE_DIR names, and the rule that picks one for a (hardware, runtime): the most specific wins.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::calibration {

// Strict: unknown keys, missing fields, wrong types and efficiencies outside (0, 1] are InputErrors naming
// the file and field.
Profile parse_profile(const nlohmann::json& j, const std::string& file);
Profile read_profile(const std::filesystem::path& path);
// Writes to a temporary name beside `path`, then renames: a crash leaves the old file or the whole new one.
void write_profile(const std::filesystem::path& path, const Profile& p);

// Every profile shipped in calibration/profiles/, calibration/profiles/fitted/ and calibration/profiles/serving/.
std::vector<Profile> shipped_profiles();
// Every *.json in the folder FLEETCAST_PROFILE_DIR names (none when it is unset), parsed.
std::vector<Profile> user_profiles();

// Among `candidates`, the profile for (hardware, runtime): one made for that runtime beats one for every
// runtime (""), and within those a measured profile beats a fitted one beats a datasheet one; on a tie the
// earlier candidate wins. None fits: the datasheet profile computed from the hardware spec (for hardware
// that ships no profile). A datasheet pick takes the figures of its runtime that carry over between GPUs, each the
// median over the fitted profiles of that runtime among `candidates`: SGLang's request_overhead_s; vLLM's
// request_overhead_s, step_overhead_s and sequence_overhead_s, and its memory_efficiency as the datasheet's times the
// median of the fits' ratio to their own datasheet's (capped at 1); TensorRT-LLM's none. A profile for one kind of
// model (model_kind set) is neither picked nor counted in those medians.
Profile select_profile(const std::vector<Profile>& candidates, const specs::HardwareSpec& hardware,
                       const std::string& runtime);

// Which profiles the environment asks for (FLEETCAST_PROFILES): "best" or unset, the most specific one; "datasheet"
// (the CLI's --datasheet-profiles), the datasheet profiles only; "unfitted" (--unfitted-profiles), each GPU the
// profile it would get with no fit or measured profile of its own, so a fitted GPU's measured runs say how a GPU
// without a fit fares (unfitted_gpu_accuracy.hpp). Any other value is an InputError naming it.
enum class ProfileChoice { best, datasheet, unfitted };
ProfileChoice profile_choice();

// select_profile over the user's profiles (FLEETCAST_PROFILE_DIR, first: they win ties) then the shipped ones,
// so a shipped fitted (hardware, runtime) profile is the default. Under FLEETCAST_PROFILES=datasheet, over the
// shipped datasheet profiles only (for figures that must not move when a fit is refreshed); under
// FLEETCAST_PROFILES=unfitted, profile_without_own_fit. Read once per process.
Profile profile_for(const specs::HardwareSpec& hardware, const std::string& runtime);
// The same, as `model` uses it: the pair's fit for the model's kind (model_kind "dense" or "moe") where there is one
// and the pair's own profile is not more specific (a measured one); else the pair's profile, in which a dense model
// on a fit made on MoE models alone takes the datasheet GEMM and attention rates (model_scope.hpp). What every
// simulation, step and plan of a model asks for.
Profile profile_for(const specs::HardwareSpec& hardware, const std::string& runtime, const specs::ModelSpec& model);
// Among `candidates`, the profile made for (hardware, runtime) and one kind of model (`model_kind`, "dense" or
// "moe"), a measured one before a fitted one; none when there is none. select_profile never picks such a profile.
std::optional<Profile> select_kind_profile(const std::vector<Profile>& candidates, const specs::HardwareSpec& hardware,
                                           const std::string& runtime, const std::string& model_kind);
// select_kind_profile over profile_for's candidates; none under FLEETCAST_PROFILES=unfitted or datasheet.
std::optional<Profile> kind_profile_for(const specs::HardwareSpec& hardware, const std::string& runtime,
                                        const std::string& model_kind);

// What `hardware` would take under `runtime` with no fit or measured profile of its own: select_profile over the
// shipped profiles less that GPU's own fitted and measured ones, i.e. its datasheet profile with the figures the
// other GPUs' fits of the runtime carry. What a GPU without a fit (GB200, GB300) gets by default, and what a fitted
// GPU's runs are scored with to measure that pick.
Profile profile_without_own_fit(const specs::HardwareSpec& hardware, const std::string& runtime);

// The datasheet profile shipped for `hardware` (calibration/profiles/<hardware>.json), or the one computed from its
// spec where none ships: the kernel-level figures a fit is held against (kernel_caveats.hpp, calibrate serving).
Profile datasheet_profile_for(const specs::HardwareSpec& hardware, const std::string& runtime);

}  // namespace fleetcast::calibration
