#include "fleetcast/calibration/predictor.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace fleetcast::calibration {
namespace {

bool compute_bound(const Peaks& peaks, double flops, double bytes) {
  return flops / peaks.flops_per_s > bytes / peaks.bytes_per_s;
}

// Least squares of eff = a + b ln(x) over the points, band = the measured efficiencies clipped to (0, 1].
EfficiencyTrend fit_trend(const std::vector<double>& x, const std::vector<double>& eff) {
  EfficiencyTrend t;
  t.points = static_cast<int>(x.size());
  if (x.empty()) return t;
  const auto [lo, hi] = std::minmax_element(eff.begin(), eff.end());
  t.min = std::clamp(*lo, 1e-6, 1.0);
  t.max = std::clamp(*hi, 1e-6, 1.0);
  const auto [xlo, xhi] = std::minmax_element(x.begin(), x.end());
  if (x.size() == 1 || *xlo == *xhi) {
    double sum = 0.0;
    for (double e : eff) sum += e;
    t.a = sum / static_cast<double>(eff.size());
    t.b = 0.0;
    return t;
  }
  Eigen::MatrixXd A(x.size(), 2);
  Eigen::VectorXd y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    A(static_cast<Eigen::Index>(i), 0) = 1.0;
    A(static_cast<Eigen::Index>(i), 1) = std::log(x[i]);
    y(static_cast<Eigen::Index>(i)) = eff[i];
  }
  const Eigen::VectorXd ab = A.colPivHouseholderQr().solve(y);
  t.a = ab(0);
  t.b = ab(1);
  return t;
}

struct Fit {
  Roofline roofline;
  double score = std::numeric_limits<double>::infinity();
};

// The trends for one t0, scored by the squared log error of the roofline over every point with work.
Fit fit_at(const std::vector<PredictorPoint>& pts, const Peaks& peaks, double t0) {
  std::vector<double> cx, ce, mx, me;
  for (const auto& p : pts) {
    if (p.flops <= 0.0 && p.bytes <= 0.0) continue;
    const double busy = p.time_s - t0;
    if (compute_bound(peaks, p.flops, p.bytes)) {
      cx.push_back(p.flops);
      ce.push_back(p.flops / peaks.flops_per_s / busy);
    } else {
      mx.push_back(p.bytes);
      me.push_back(p.bytes / peaks.bytes_per_s / busy);
    }
  }
  Fit f;
  f.roofline.peaks = peaks;
  f.roofline.t0_s = t0;
  f.roofline.compute = fit_trend(cx, ce);
  f.roofline.memory = fit_trend(mx, me);
  f.score = 0.0;
  for (const auto& p : pts) {
    if (p.flops <= 0.0 && p.bytes <= 0.0) continue;
    const double e = std::log(f.roofline.time_s(p.flops, p.bytes) / p.time_s);
    f.score += e * e;
  }
  return f;
}

double scale(double v, bool log_scale) { return log_scale ? std::log(v) : v; }

// What interpolation scales: the roofline time, or 1 where the roofline has nothing (no work, no t0).
double base_time(const Roofline& r, double flops, double bytes) {
  const double t = r.time_s(flops, bytes);
  return t > 0.0 ? t : 1.0;
}

}  // namespace

double EfficiencyTrend::at(double x) const {
  const double e = points > 0 && x > 0.0 ? a + b * std::log(x) : a;
  return std::clamp(e, min, max);
}

double Roofline::time_s(double flops, double bytes) const {
  const double compute_time = flops > 0.0 ? flops / (compute.at(flops) * peaks.flops_per_s) : 0.0;
  const double memory_time = bytes > 0.0 ? bytes / (memory.at(bytes) * peaks.bytes_per_s) : 0.0;
  return std::max(compute_time, memory_time) + t0_s;
}

std::optional<double> OpPredictor::interpolate(const std::vector<double>& q, double flops, double bytes) const {
  if (points.empty() || q.size() != dims.size()) return std::nullopt;
  const std::size_t d = dims.size();
  // The grid: each dim's measured values, and log(time / roofline) at each measured combination (repeats
  // averaged). Interpolating the ratio to the roofline rather than the time itself follows the roofline's
  // knee between two grid points (a GEMM turning compute-bound between m = 128 and m = 1024) and is still
  // exact at the points.
  std::vector<std::vector<double>> values(d);
  std::map<std::vector<double>, std::pair<double, int>> log_time;
  for (const auto& p : points) {
    for (std::size_t i = 0; i < d; ++i) values[i].push_back(p.dims[i]);
    auto& [sum, n] = log_time[p.dims];
    sum += std::log(p.time_s / base_time(roofline, p.flops, p.bytes));
    ++n;
  }
  std::vector<std::size_t> lower(d);
  std::vector<double> weight(d);  // of the upper neighbour
  for (std::size_t i = 0; i < d; ++i) {
    auto& v = values[i];
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (q[i] < v.front() || q[i] > v.back()) return std::nullopt;
    const bool log_scale = v.front() > 0.0;
    std::size_t j = static_cast<std::size_t>(std::upper_bound(v.begin(), v.end(), q[i]) - v.begin());
    j = j == 0 ? 0 : j - 1;
    if (j + 1 >= v.size() || q[i] == v[j]) {
      lower[i] = j;
      weight[i] = 0.0;
      continue;
    }
    lower[i] = j;
    weight[i] =
        (scale(q[i], log_scale) - scale(v[j], log_scale)) / (scale(v[j + 1], log_scale) - scale(v[j], log_scale));
  }
  double acc = 0.0;
  for (std::size_t corner = 0; corner < (std::size_t{1} << d); ++corner) {
    double w = 1.0;
    std::vector<double> key(d);
    for (std::size_t i = 0; i < d; ++i) {
      const bool upper = (corner >> i) & 1U;
      w *= upper ? weight[i] : 1.0 - weight[i];
      key[i] = values[i][lower[i] + (upper && weight[i] > 0.0 ? 1 : 0)];
    }
    if (w == 0.0) continue;
    const auto it = log_time.find(key);
    if (it == log_time.end()) return std::nullopt;  // an incomplete cell: the roofline answers
    acc += w * it->second.first / it->second.second;
  }
  return std::exp(acc) * base_time(roofline, flops, bytes);
}

double OpPredictor::predict(const std::vector<double>& q, double flops, double bytes) const {
  if (auto t = interpolate(q, flops, bytes)) return *t;
  return roofline.time_s(flops, bytes);
}

OpPredictor fit_predictor(std::string op, std::string dtype, std::string variant, std::vector<std::string> dims,
                          std::vector<PredictorPoint> points, const Peaks& peaks) {
  OpPredictor p;
  p.op = std::move(op);
  p.dtype = std::move(dtype);
  p.variant = std::move(variant);
  p.dims = std::move(dims);
  p.points = std::move(points);
  p.roofline.peaks = peaks;
  double fastest = std::numeric_limits<double>::infinity();
  bool any_work = false;
  double log_sum = 0.0;
  for (const auto& pt : p.points) {
    fastest = std::min(fastest, pt.time_s);
    any_work = any_work || pt.flops > 0.0 || pt.bytes > 0.0;
    log_sum += std::log(pt.time_s);
  }
  if (p.points.empty()) return p;
  if (!any_work) {
    // Imported kernels carry no FLOP or byte counts: the roofline is the geometric mean time.
    p.roofline.t0_s = std::exp(log_sum / static_cast<double>(p.points.size()));
    return p;
  }
  // t0 is the fixed cost under every run (launch, tail); searched on a grid because the trends are linear
  // only once it is fixed. Ties keep the smaller t0.
  Fit best;
  for (int i = 0; i < 20; ++i) {
    Fit f = fit_at(p.points, peaks, fastest * 0.05 * i);
    if (f.score < best.score - 1e-12) best = f;
  }
  p.roofline = best.roofline;
  return p;
}

}  // namespace fleetcast::calibration
