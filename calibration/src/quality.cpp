// Fit quality on points a predictor did not see: leave-one-out (each point in turn) and held-out shapes
// (for each dim, every point at its largest value, i.e. the extrapolation a planner does most).
#include <algorithm>
#include <cmath>

#include "fleetcast/calibration/fit.hpp"

namespace fleetcast::calibration {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Refits on the points `keep` says, and returns the APEs at the others.
std::vector<double> apes_without(const OpPredictor& p, const std::vector<bool>& keep) {
  std::vector<PredictorPoint> train;
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    if (keep[i]) train.push_back(p.points[i]);
  }
  const OpPredictor refit = fit_predictor(p.op, p.dtype, p.variant, p.dims, train, p.roofline.peaks);
  std::vector<double> apes;
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    if (keep[i]) continue;
    const auto& pt = p.points[i];
    apes.push_back(std::abs(refit.predict(pt.dims, pt.flops, pt.bytes) - pt.time_s) / pt.time_s);
  }
  return apes;
}

}  // namespace

OpQuality assess(const OpPredictor& p) {
  OpQuality q;
  q.op = p.op;
  q.dtype = p.dtype;
  q.points = static_cast<int>(p.points.size());
  for (std::size_t d = 0; d < p.dims.size(); ++d) {
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& pt : p.points) {
      lo = std::min(lo, pt.dims[d]);
      hi = std::max(hi, pt.dims[d]);
    }
    q.range[p.dims[d]] = {lo, hi};
  }
  if (p.points.size() < 2) return q;  // nothing to leave out
  std::vector<double> loo;
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    std::vector<bool> keep(p.points.size(), true);
    keep[i] = false;
    const auto a = apes_without(p, keep);
    loo.insert(loo.end(), a.begin(), a.end());
  }
  q.loo_median_ape = median(loo);
  q.loo_max_ape = *std::max_element(loo.begin(), loo.end());
  std::vector<double> held;
  for (std::size_t d = 0; d < p.dims.size(); ++d) {
    const double hi = q.range[p.dims[d]].second;
    std::vector<bool> keep(p.points.size());
    for (std::size_t i = 0; i < p.points.size(); ++i) keep[i] = p.points[i].dims[d] != hi;
    const auto a = apes_without(p, keep);
    held.insert(held.end(), a.begin(), a.end());
  }
  q.held_out_points = static_cast<int>(held.size());
  if (!held.empty()) {
    q.held_out_median_ape = median(held);
    q.held_out_max_ape = *std::max_element(held.begin(), held.end());
  }
  return q;
}

}  // namespace fleetcast::calibration
