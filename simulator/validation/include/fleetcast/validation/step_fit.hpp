#pragma once
// A profile fitted to engine iterations a serving engine measured (Dynamo's forward-pass metrics): the step model's
// GEMM factor (on the datasheet GEMM rates), attention and HBM efficiencies, host time per step and per sequence,
// NVLink efficiency under TP, and for a MoE model its experts' kernel efficiency, by Levenberg-Marquardt on
// log(predicted / measured) step time, errors beyond a factor 1.5 weighed linearly (a few mis-timed iterations, such
// as a step whose wall time overlapped the one before, do not pull the fit). Every fifth step, by position in the
// file, is held out and scored. A fit to one model's steps describes that model on that engine, GPU and layout;
// docs/ACCURACY.md, "The step model against measured engine iterations", says how far it carries.

#include <string>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/model.hpp"
#include "fleetcast/traces/forward_pass_metrics.hpp"

namespace fleetcast::validation {

struct StepFitScore {
  int steps = 0;
  double median_ape = 0.0;
};

struct StepFit {
  calibration::Profile profile;  // kind "measured", runtime set, fitted_models the model, sources naming the file
  StepFitScore before_train, after_train;
  StepFitScore before_held_out, after_held_out;
  int iterations = 0;
};

// Starts from `start` (the profile the scenario's model uses) and writes its figures over `datasheet`'s; `file`
// names the measurements in the sources. Throws InputError with fewer than 10 steps to train on.
StepFit fit_step_profile(const specs::ModelSpec& model, const specs::DeploymentSpec& deployment,
                         const calibration::Profile& start, const calibration::Profile& datasheet,
                         const traces::ForwardPassMetrics& fpm, const std::string& file, int max_iterations = 20);

}  // namespace fleetcast::validation
