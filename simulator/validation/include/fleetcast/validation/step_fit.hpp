#pragma once
// A profile fitted to engine iterations a serving engine measured (Dynamo's forward-pass metrics): the step model's
// GEMM factor (on the datasheet GEMM rates), attention and HBM efficiencies, host time per step and per sequence,
// NVLink efficiency and the latency of one collective call under TP, and for a MoE model its experts' kernel
// efficiency, by Levenberg-Marquardt on log(predicted / measured) step time, errors beyond a factor 1.5 weighed
// linearly (a few mis-timed iterations, such as a step whose wall time overlapped the one before, do not pull the fit).
// Every fifth step, by position in the file, is held out and scored. A fit to one model's steps describes that model on
// that engine, GPU and layout; docs/ACCURACY.md, "The step model against measured engine iterations", says how far it
// carries.

#include <string>
#include <vector>

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

// One engine's measured steps, with the model and deployment that ran them.
struct StepCase {
  specs::ModelSpec model;
  specs::DeploymentSpec deployment;
  traces::ForwardPassMetrics fpm;
  std::string file;
};

// One profile for every case (all on one hardware and runtime, else InputError): layouts or models that differ pin
// what one alone cannot (TP1 and TP2 of one model part the GEMMs and weight reads from the all-reduces). One experts'
// efficiency per weight format among the cases' MoE models; fitted_models all their models. Starts from `start` (the
// profile in use) and writes its figures over `datasheet`'s GEMM rates; the files are named in the sources. Throws
// InputError with fewer than 10 steps to train on.
StepFit fit_step_profile(const std::vector<StepCase>& cases, const calibration::Profile& start,
                         const calibration::Profile& datasheet, int max_iterations = 20);
// One case.
StepFit fit_step_profile(const specs::ModelSpec& model, const specs::DeploymentSpec& deployment,
                         const calibration::Profile& start, const calibration::Profile& datasheet,
                         const traces::ForwardPassMetrics& fpm, const std::string& file, int max_iterations = 20);

}  // namespace fleetcast::validation
