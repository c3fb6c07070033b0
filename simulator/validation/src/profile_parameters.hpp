#pragma once
// The parameters both profile fits share (serving_fit.cpp, step_fit.cpp), first in their parameter vectors and in
// this order: the GEMM factor on the datasheet rates, attention efficiency, HBM efficiency, host time per step, NVLink
// efficiency, host time per sequence.

#include <Eigen/Dense>

#include "fleetcast/calibration/profile.hpp"

namespace fleetcast::validation::detail {

// The largest ratio of `p`'s matmul efficiency to the datasheet's over their shared classes (1 where there is none):
// the one factor that gives back every class of a fit, whose classes are the datasheet's times one factor capped at 1.
double gemm_factor(const calibration::Profile& p, const calibration::Profile& datasheet);

// Sets the six shared fields of `p` from x (the parameters, exponentiated): each matmul class the datasheet's times
// x(0), capped at 1; then attention, memory, step overhead, NVLink, sequence overhead from x(1) to x(5).
void set_shared_parameters(calibration::Profile& p, const calibration::Profile& datasheet, const Eigen::VectorXd& x);

}  // namespace fleetcast::validation::detail
