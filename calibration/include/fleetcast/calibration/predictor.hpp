#pragma once
// A per-op time predictor fitted to measured points (docs/CALIBRATION.md, "Predictors"):
// - inside the measured grid, multilinear interpolation of log(time / roofline time) over log(shape dim)
//   (linear for a dim that has a value <= 0), exact at every measured point;
// - elsewhere (or where a grid cell lacks a corner), a roofline
//     t = max(flops / (eff_c(flops) x peak_flops), bytes / (eff_m(bytes) x peak_bytes_per_s)) + t0_s
//   whose efficiencies follow the measured trend eff(x) = a + b ln(x), clipped to the band the measured
//   points span (within (0, 1]), so extrapolation keeps the trend instead of jumping to peak.

#include <optional>
#include <string>
#include <vector>

namespace fleetcast::calibration {

struct PredictorPoint {
  std::vector<double> dims;  // the values of OpPredictor::dims, in order
  double time_s = 0.0;
  double flops = 0.0;
  double bytes = 0.0;
  bool operator==(const PredictorPoint&) const = default;
};

// eff(x) = clamp(a + b ln(x), min, max); `points` fitted it (0: no point of this regime, eff = max = 1).
struct EfficiencyTrend {
  double a = 1.0;
  double b = 0.0;
  double min = 1.0;
  double max = 1.0;
  int points = 0;
  double at(double x) const;
  bool operator==(const EfficiencyTrend&) const = default;
};

// The rates a roofline is relative to, and where they came from.
struct Peaks {
  double flops_per_s = 0.0;
  double bytes_per_s = 0.0;
  std::string source;  // "datasheet: h200 ..." or "measured: best GEMM ... (no datasheet for this device)"
  bool operator==(const Peaks&) const = default;
};

struct Roofline {
  Peaks peaks;
  EfficiencyTrend compute;  // x = FLOPs of one run
  EfficiencyTrend memory;   // x = bytes of one run
  double t0_s = 0.0;
  double time_s(double flops, double bytes) const;
  bool operator==(const Roofline&) const = default;
};

struct OpPredictor {
  std::string op;
  std::string dtype;
  std::string variant;            // the op's constant string shape fields, "key=value,..." ("" if none)
  std::vector<std::string> dims;  // integer shape fields that vary between the measured points
  std::vector<PredictorPoint> points;
  Roofline roofline;

  // Interpolation where the query lies in a complete grid cell, else the roofline.
  double predict(const std::vector<double>& dims, double flops, double bytes) const;
  std::optional<double> interpolate(const std::vector<double>& dims, double flops, double bytes) const;
  bool operator==(const OpPredictor&) const = default;
};

// Fits the roofline (t0 by a search over [0, 0.95 x the fastest point), the trends by Eigen least squares
// per regime: a point is compute-bound when flops / peak_flops > bytes / peak_bytes_per_s).
OpPredictor fit_predictor(std::string op, std::string dtype, std::string variant, std::vector<std::string> dims,
                          std::vector<PredictorPoint> points, const Peaks& peaks);

}  // namespace fleetcast::calibration
