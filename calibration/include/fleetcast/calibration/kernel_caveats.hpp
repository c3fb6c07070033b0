#pragma once
// Where a profile's efficiencies leave the range the kernels themselves reach. The datasheet profile holds the best
// figures measured by others at kernel level (REFERENCE.md section 4: MAMF matmuls, FlashMLA, NCCL). A fitted profile
// above them runs some part of the step faster than any kernel was measured to: it stands in for time the step model
// counts and the engine does not spend (a cohort of prompts prefilled together where the real clients were spread
// out, say). One far below them (under half) stands in for a slowdown the model does not describe (a kernel path, a
// host stall). Either way the fit reproduces its rows but says little about a workload outside them, which a user
// reading the profile should know. These are flags for a reader, not limits: `calibrate serving --bounded` is the
// fit that keeps to them.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleetcast/calibration/profile.hpp"

namespace fleetcast::calibration {

// The highest attention and HBM streaming efficiencies a fit may claim before it is above what kernels reach: a
// margin over the datasheet's 0.65 (FlashMLA, dense attention on B200) and 0.90 (FlashMLA decode), which are single
// kernels' best. `calibrate serving --bounded` caps at the same figures.
constexpr double kMaxAttentionEfficiency = 0.80;
constexpr double kMaxMemoryEfficiency = 0.95;
// Below this share of the kernel-level figure an efficiency is flagged as too slow for the kernels.
constexpr double kFarBelowKernelShare = 0.5;

struct KernelCaveat {
  std::string field;    // the profile field, e.g. "matmul_efficiency.bf16", "expert_kernel_efficiency.fp8"
  double value = 0.0;   // the profile's figure
  double kernel = 0.0;  // the kernel-level figure it is held against (the ceiling above, the figure itself below)
  bool above = false;   // above the ceiling (faster than any kernel), else below kFarBelowKernelShare x kernel
};

// The caveats of `profile` against `datasheet` (the datasheet profile of the same hardware), in field order. A
// datasheet profile held against itself has none.
std::vector<KernelCaveat> kernel_caveats(const Profile& profile, const Profile& datasheet);

// "matmul_efficiency.bf16 1.00 above the best kernel-level 0.80" / "nvlink_efficiency 0.09 below half of 0.82".
std::string describe(const KernelCaveat& c);

// [{"field", "value", "kernel_level", "above"}, ...]: the form reports and `validate --json` carry them in.
nlohmann::json to_json(const std::vector<KernelCaveat>& caveats);

// The caveats in that JSON form as one short line for a summary: "matmul_efficiency.bf16 1.00 > 0.78,
// nvlink_efficiency 0.27 < half of 0.82" ("" for none). Entries missing a field are skipped, not guessed.
std::string short_list(const nlohmann::json& caveats);

}  // namespace fleetcast::calibration
