#pragma once
// Runs a plan on a backend: for each op and precision a full check on a small shape first, then for every
// case a sampled check, warm-up, timed repetitions, percentiles and achieved rates, into a calibration
// trace. A failed check stops the run (CheckFailed): a wrong kernel's time must never calibrate anything.

#include <functional>
#include <string>
#include <vector>

#include "fleetcast/engine/backend.hpp"
#include "fleetcast/engine/plan.hpp"
#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::engine {

struct SkippedCase {
  OpCase op_case;
  std::string reason;
};

struct SmallCheck {
  std::string op, dtype;
  Shape shape;
  CheckResult result;
};

struct RunOutcome {
  traces::CalibrationTrace trace;
  std::vector<SmallCheck> small_checks;
  std::vector<SkippedCase> skipped;
};

// `log` receives one line per step (without newline); pass {} for silence.
RunOutcome run_plan(const Plan& plan, Backend& backend, const std::function<void(const std::string&)>& log);

// The record of one timed case: percentiles of `seconds`, hand-counted FLOPs and bytes, achieved rates.
traces::CalibrationMeasurement make_measurement(const OpInfo& op, const std::string& dtype, const Shape& shape,
                                                const std::vector<double>& seconds, const CheckResult& check);

}  // namespace fleetcast::engine
