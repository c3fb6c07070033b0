// Levenberg-Marquardt in a box (levenberg_marquardt.hpp).
#include "levenberg_marquardt.hpp"

#include <algorithm>
#include <cmath>

namespace fleetcast::validation::detail {

double huber_residual(double r) {
  const double delta = std::log(1.5), a = std::abs(r);
  if (a <= delta) return r;
  return std::copysign(std::sqrt(2.0 * delta * (a - delta / 2.0)), r);
}

Descent levenberg_marquardt(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& objective,
                            const Eigen::VectorXd& start, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                            int max_iterations) {
  const Eigen::Index params = start.size();
  Eigen::VectorXd theta = start.cwiseMax(lo).cwiseMin(hi);
  Eigen::VectorXd r = objective(theta);
  double cost = r.squaredNorm(), lambda = 1e-2;
  const double h = 0.05;  // forward-difference step in log space (5%)
  int iterations = 0;
  for (int it = 0; it < max_iterations; ++it) {
    iterations = it + 1;
    Eigen::MatrixXd J(r.size(), params);
    for (Eigen::Index j = 0; j < params; ++j) {
      // Forward, or backward where a forward step would leave the box (a parameter at its ceiling).
      const double dh = theta(j) + h > hi(j) ? -h : h;
      Eigen::VectorXd t = theta;
      t(j) += dh;
      J.col(j) = (objective(t) - r) / dh;
    }
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    for (int tries = 0; tries < 6 && !improved; ++tries) {
      Eigen::MatrixXd damped = A;
      damped.diagonal() += lambda * (A.diagonal().array() + 1e-9).matrix();
      const Eigen::VectorXd step = damped.ldlt().solve(-g);
      const Eigen::VectorXd candidate =  // at most a factor e per iteration, inside the box
          (theta + step.cwiseMax(-1.0).cwiseMin(1.0)).cwiseMax(lo).cwiseMin(hi);
      const Eigen::VectorXd rc = objective(candidate);
      if (rc.squaredNorm() < cost) {
        improved = cost - rc.squaredNorm() > 1e-4 * cost;
        theta = candidate;
        r = rc;
        cost = rc.squaredNorm();
        lambda = std::max(lambda / 3.0, 1e-6);
        if (!improved) tries = 6;
      } else {
        lambda *= 4.0;
      }
    }
    if (!improved) break;
  }
  return Descent{theta, cost, iterations};
}

}  // namespace fleetcast::validation::detail
