#pragma once
// The composition check (docs/CALIBRATION.md, "Compose"): from one trace holding op measurements and
// model_step records, fit a profile for the trace's device as a hardware of its own, predict every model step
// with the simulator's step-time model for that model cut to the step's layers, and compare.
// model_step contract: op "model_step", shape {"model": preset, "tp", "ep", "layers",
// "phase": "decode" | "prefill", "batch", "context", "new_tokens"} (decode: `batch` sequences each adding
// one token at `context`; prefill: `batch` sequences each adding `new_tokens` after `context`).
// Lives apart from the calibration library because it needs the simulator, which needs calibration.

#include <string>
#include <vector>

#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/specs/hardware.hpp"

namespace fleetcast::calibration {

struct ComposeRow {
  std::string model;
  int layers = 0;
  std::string phase;
  int batch = 0;
  int context = 0;
  int new_tokens = 0;
  double measured_s = 0.0;
  double predicted_s = 0.0;
  double ape = 0.0;
};

struct ComposeResult {
  Profile profile;               // fitted for the trace's device
  specs::HardwareSpec hardware;  // the device as the step-time model sees it
  std::vector<ComposeRow> rows;
  double median_ape = 0.0;
  double max_ape = 0.0;
};

// The device as a hardware spec: the preset the device names, or (a CPU, an unlisted GPU) peaks from the
// profile's predictors: the best GEMM FLOP/s and the best copy bytes/s of the trace.
specs::HardwareSpec hardware_for(const Profile& fitted, const traces::CalibrationTrace& trace);

// `use_predictors` false: the step-time model gets the fitted profile without its per-op predictors (the summary
// efficiencies only), the baseline the predictors are compared against.
ComposeResult compose_check(const FitInput& input, bool use_predictors = true);

}  // namespace fleetcast::calibration
