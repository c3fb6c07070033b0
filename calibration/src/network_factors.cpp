// SimGrid network factors from measured point-to-point transfers (docs/CALIBRATION.md, "Network factors").
// Per transport, the measured sizes are cut into bands of consecutive sizes; in each band t = a + bytes x c is
// fitted by least squares on relative errors, and the factors are a / route latency and (1 / c) / route
// bandwidth: piecewise-constant factors make the simulated time piecewise affine in the size, which follows a
// measured curve whose efficiency rises with the size (NCCL's protocols and chunking) band by band, and beyond
// the largest measured size continues the last band's line (the bandwidth the largest messages reached).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>

#include "fleetcast/calibration/fit.hpp"

namespace fleetcast::calibration {
namespace {

// Sizes per band: two would interpolate the noise of two points. With four (a band spans 8x of a sweep in steps
// of 2x) the line averages the noise and still follows the curvature: on the synthetic curve of
// tests/calibration/test_network_factors.cpp with 2% noise, over 500 noise draws (a Python replica of this fit),
// the worst point was 6.0% off its measurement and 7.1% off the true curve, 3, 4 and 5 sizes giving 6.0 / 5.3 /
// 6.9% against the measurement, 6.6 / 7.1 / 6.7% against the curve, and 5.4 / 3.6 / 3.3% at 4 to 64x beyond
// the largest size: four is the best compromise of in-range error and extrapolation.
constexpr std::size_t kSizesPerBand = 4;

struct Point {
  double bytes = 0.0;
  double time_s = 0.0;
};

struct Line {
  double latency_s = 0.0;
  double s_per_byte = 0.0;
};

// t = a + bytes x c, rows weighted by 1 / t (relative errors); a negative or degenerate slope keeps `fallback`'s
// and fits the latency alone; a negative latency refits through the origin.
Line fit_line(const std::vector<Point>& pts, const Line* fallback) {
  const auto n = static_cast<Eigen::Index>(pts.size());
  Eigen::MatrixXd A(n, 2);
  Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    A(i, 0) = 1.0 / pts[static_cast<std::size_t>(i)].time_s;
    A(i, 1) = pts[static_cast<std::size_t>(i)].bytes / pts[static_cast<std::size_t>(i)].time_s;
  }
  Line l;
  if (n >= 2) {
    const Eigen::VectorXd x = A.colPivHouseholderQr().solve(ones);
    l = {x(0), x(1)};
  }
  if (n < 2 || !(l.s_per_byte > 0.0)) {
    l.s_per_byte = fallback ? fallback->s_per_byte : A.col(1).dot(ones) / A.col(1).squaredNorm();
    // Latency alone: minimise sum ((a + bytes c) / t - 1)^2 over a.
    double num = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) num += A(i, 0) * (1.0 - A(i, 1) * l.s_per_byte);
    l.latency_s = num / A.col(0).squaredNorm();
  }
  if (l.latency_s < 0.0) l = {0.0, A.col(1).dot(ones) / A.col(1).squaredNorm()};
  return l;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

const NetworkFactorBand& NetworkFactors::band_for(double bytes) const {
  std::size_t i = 0;
  while (i + 1 < bands.size() && bytes >= bands[i + 1].min_bytes) ++i;
  return bands[i];
}

double NetworkFactors::transfer_time_s(double bytes) const {
  const NetworkFactorBand& b = band_for(bytes);
  return route_latency_s * b.latency_factor + bytes / (route_bytes_per_s * b.bandwidth_factor);
}

SimulatedRoute simulated_route(const std::string& transport, const specs::HardwareSpec& hw, const Profile& p) {
  if (transport == "nvlink") return {2.0 * kGpuLinkLatencyS, hw.nvlink_bytes_per_s_one_way() * p.nvlink_efficiency};
  return {2.0 * kGpuLinkLatencyS + kFabricLatencyS, hw.nic_bytes_per_s() * p.nic_efficiency};
}

std::vector<NetworkFactors> fit_network_factors(const std::vector<traces::CalibrationMeasurement>& records,
                                                const specs::HardwareSpec& hw, const Profile& p,
                                                const std::string& source) {
  const int domain = hw.scale_up_domain_gpus > 0 ? hw.scale_up_domain_gpus : 8;
  std::map<std::string, std::vector<Point>> by_transport;
  for (const auto& m : records) {
    if (m.op != "send_recv" || !(m.median_s > 0.0)) continue;
    const int gpus =
        m.shape.contains("gpus") && m.shape.at("gpus").is_number_integer() ? m.shape.at("gpus").get<int>() : m.gpus;
    const double bytes =
        m.shape.contains("bytes") && m.shape.at("bytes").is_number() ? m.shape.at("bytes").get<double>() : m.bytes;
    if (bytes <= 0.0) continue;
    by_transport[gpus <= domain ? "nvlink" : "nic"].push_back({bytes, m.median_s});
  }
  std::vector<NetworkFactors> out;
  for (auto& [transport, pts] : by_transport) {
    const SimulatedRoute route = simulated_route(transport, hw, p);
    if (!(route.bytes_per_s > 0.0)) continue;  // the hardware has no such link: nothing to correct
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.bytes < b.bytes; });
    std::vector<double> sizes;
    for (const auto& q : pts)
      if (sizes.empty() || q.bytes != sizes.back()) sizes.push_back(q.bytes);
    if (sizes.size() < 2) continue;  // one size cannot separate latency from bandwidth
    const Line overall = fit_line(pts, nullptr);
    NetworkFactors f;
    f.transport = transport;
    f.route_latency_s = route.latency_s;
    f.route_bytes_per_s = route.bytes_per_s;
    f.points = static_cast<int>(pts.size());
    f.min_bytes = sizes.front();
    f.max_bytes = sizes.back();
    f.source = source;
    const std::size_t bands = std::max<std::size_t>(1, sizes.size() / kSizesPerBand);
    for (std::size_t b = 0; b < bands; ++b) {
      // Sizes [lo, hi) of this band, spread evenly (the last ones absorb the remainder).
      const std::size_t lo = b * sizes.size() / bands, hi = (b + 1) * sizes.size() / bands;
      std::vector<Point> in;
      for (const auto& q : pts)
        if (q.bytes >= sizes[lo] && q.bytes <= sizes[hi - 1]) in.push_back(q);
      const Line l = hi - lo >= 2 ? fit_line(in, &overall) : overall;
      NetworkFactorBand band;
      band.min_bytes = b == 0 ? 0.0 : sizes[lo];
      band.latency_factor = l.latency_s / route.latency_s;
      band.bandwidth_factor = 1.0 / (l.s_per_byte * route.bytes_per_s);
      f.bands.push_back(band);
    }
    std::vector<double> ape;
    for (const auto& q : pts) ape.push_back(std::abs(f.transfer_time_s(q.bytes) / q.time_s - 1.0));
    f.median_ape = median(ape);
    f.max_ape = *std::max_element(ape.begin(), ape.end());
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fleetcast::calibration
