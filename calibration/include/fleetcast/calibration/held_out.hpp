#pragma once
// `fleetcast calibrate check PROFILE --trace HELD_OUT.jsonl`: a profile's predictors asked for measurements
// its fit did not see, per op the median and max APE next to the leave-one-out error the profile reports for
// that op. An op is "within" when its held-out median APE is at most the reported LOO max APE: the fit's own
// estimate of its error on an unseen point held for points that really were unseen.

#include <string>
#include <vector>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::calibration {

struct HeldOutOp {
  std::string op;
  std::string dtype;
  int points = 0;
  double median_ape = 0.0;
  double max_ape = 0.0;
  double reported_loo_median_ape = 0.0;
  double reported_loo_max_ape = 0.0;
  bool within = false;  // median_ape <= reported_loo_max_ape
};

struct HeldOutCheck {
  std::vector<HeldOutOp> ops;
  int unpredicted = 0;  // measurements of an op (or dtype, variant) the profile has no predictor for
};

// Every op measurement of the trace (model steps and collectives are left out) predicted at its own shape,
// FLOPs and bytes. A measurement lacking one of the predictor's dims fails naming the trace line.
HeldOutCheck check_held_out(const Profile& profile, const traces::CalibrationTrace& trace, const std::string& file);

}  // namespace fleetcast::calibration
