#pragma once
// Levenberg-Marquardt in a box, on a residual vector of log errors: the descent both profile fits use
// (serving_fit.cpp on whole benchmark runs, step_fit.cpp on measured engine iterations).

#include <Eigen/Dense>
#include <functional>

namespace fleetcast::validation::detail {

struct Descent {
  Eigen::VectorXd theta;
  double cost = 0.0;  // squared norm of the residuals at theta
  int iterations = 0;
};

// From `start` (clamped into [lo, hi]), forward-difference Jacobians with a 5% step in log space (backward where a
// forward step would leave the box), each step at most a factor e per parameter and kept inside the box; stops when
// no damping in six tries lowers the cost by more than 1e-4 of it, or after max_iterations.
// The robust fits' residual: r itself within a factor 1.5 (|r| <= log 1.5), beyond it the square root of twice the
// Huber loss, so that a row or step off by a factor of several (a KV-capacity cliff, a run the model does not
// describe, a mis-timed iteration) pulls on the parameters linearly rather than quadratically.
double huber_residual(double r);

Descent levenberg_marquardt(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& objective,
                            const Eigen::VectorXd& start, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                            int max_iterations);

}  // namespace fleetcast::validation::detail
