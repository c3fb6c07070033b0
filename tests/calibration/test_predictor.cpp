// Per-op predictors: log-space interpolation inside the grid, a fitted roofline outside, checked against
// functions whose answer is known.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/calibration/predictor.hpp"
#include "fleetcast/specs/presets.hpp"
#include "synthetic_trace.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

calibration::Peaks unit_peaks() { return {1e12, 1e11, "test"}; }

calibration::PredictorPoint point(std::vector<double> dims, double t, double flops = 0.0, double bytes = 0.0) {
  return {std::move(dims), t, flops, bytes};
}

// Ground truth for an H100 BF16 GEMM: efficiencies that rise with the work, eff = a + b ln(x), and a fixed
// 4 us per call. Compute: 0.57 at 1e9 FLOPs to 0.80 at 1e13; memory: 0.78 at 1 MB to 0.91 at 1 GB.
struct GemmTruth {
  specs::HardwareSpec hw = specs::hardware_preset("h100");
  double eff_c(double flops) const { return std::clamp(0.05 + 0.025 * std::log(flops), 0.05, 1.0); }
  double eff_m(double bytes) const { return std::clamp(0.50 + 0.02 * std::log(bytes), 0.05, 1.0); }
  double time_s(double flops, double bytes) const {
    return std::max(flops / (eff_c(flops) * hw.peak_flops("bf16")), bytes / (eff_m(bytes) * hw.hbm_bytes_per_s())) +
           4e-6;
  }
  static double flops(double m, double n, double k) { return 2.0 * m * n * k; }
  static double bytes(double m, double n, double k) { return 2.0 * (m * k + k * n + m * n); }
};

calibration::OpPredictor fitted_gemm(const GemmTruth& truth, double sigma) {
  auto trace = test::empty_trace("NVIDIA H100 80GB HBM3", "cuda");
  test::Noise noise(sigma, 7);
  for (long long m : {1, 16, 128, 1024, 8192}) {
    for (long long n : {4096, 14336}) {
      for (long long k : {4096, 8192}) {
        const double f = GemmTruth::flops(m, n, k), b = GemmTruth::bytes(m, n, k);
        trace.measurements.push_back(
            test::measurement("gemm", "bf16", {{"m", m}, {"n", n}, {"k", k}}, truth.time_s(f, b) * noise(), f, b));
      }
    }
  }
  const auto profile =
      calibration::fit_profile({calibration::fit_input_from_text(traces::to_jsonl(trace), "t.jsonl")}, {});
  REQUIRE(profile.hardware == "h100");
  REQUIRE(profile.predictor("gemm", "bf16") != nullptr);
  return *profile.predictor("gemm", "bf16");
}

}  // namespace

TEST_CASE("interpolation returns the measured time at every grid point", "[calibration][predictor]") {
  std::vector<calibration::PredictorPoint> pts;
  for (double m : {1.0, 8.0, 64.0}) {
    for (double n : {1024.0, 4096.0}) pts.push_back(point({m, n}, 1e-6 * m + 3e-9 * n * std::sqrt(m), 1.0, 1.0));
  }
  const auto p = calibration::fit_predictor("gemm", "bf16", "", {"m", "n"}, pts, unit_peaks());
  for (const auto& pt : pts) CHECK(p.predict(pt.dims, pt.flops, pt.bytes) == Approx(pt.time_s).epsilon(1e-12));
}

TEST_CASE("interpolation is linear in log time over log shape", "[calibration][predictor]") {
  // t = 1e-5 m^1.5 with no FLOP or byte counts (a flat roofline): a power law is a straight line in log-log,
  // so m = 10 between 1 and 100 gives exactly 1e-5 * 10^1.5 (a linear interpolation would give 1.09e-4).
  const auto p =
      calibration::fit_predictor("op", "fp32", "", {"m"}, {point({1}, 1e-5), point({100}, 1e-2)}, unit_peaks());
  CHECK(*p.interpolate({10}, 0.0, 0.0) == Approx(1e-5 * std::pow(10.0, 1.5)).epsilon(1e-12));
  CHECK_FALSE(p.interpolate({200}, 0.0, 0.0).has_value());  // outside: the roofline answers
}

TEST_CASE("an incomplete grid cell falls back to the roofline", "[calibration][predictor]") {
  const auto p = calibration::fit_predictor(
      "op", "fp32", "", {"m", "n"},
      {point({1, 1}, 1e-5, 1e6, 1e3), point({1, 10}, 2e-5, 1e7, 1e4), point({10, 1}, 3e-5, 1e7, 1e4)}, unit_peaks());
  CHECK_FALSE(p.interpolate({5, 5}, 2.5e7, 2.5e4).has_value());
  CHECK(p.predict({5, 5}, 2.5e7, 2.5e4) == p.roofline.time_s(2.5e7, 2.5e4));
}

TEST_CASE("a GEMM fit recovers the efficiency trend it was made from", "[calibration][predictor]") {
  const GemmTruth truth;
  // 2% lognormal noise on every time. The roofline, and the interpolation that scales it, are then within 8%
  // of the noise-free truth at shapes inside the measured range that were not measured (the regime split by
  // datasheet peaks and the t0 grid of 5% of the fastest run cost a few percent on top of the noise; plain
  // log-time interpolation would be 21% off at m = 512, across the knee between m = 128 and 1024).
  const auto p = fitted_gemm(truth, 0.02);
  for (auto [m, n, k] : {std::tuple{4.0, 6144.0, 6144.0}, std::tuple{512.0, 8192.0, 5120.0},
                         std::tuple{3000.0, 12288.0, 4096.0}, std::tuple{64.0, 4096.0, 8192.0}}) {
    const double f = GemmTruth::flops(m, n, k), b = GemmTruth::bytes(m, n, k);
    CHECK(p.roofline.time_s(f, b) == Approx(truth.time_s(f, b)).epsilon(0.08));
    CHECK(p.predict({m, n, k}, f, b) == Approx(truth.time_s(f, b)).epsilon(0.08));
  }
  // The compute efficiency at the largest GEMM: truth 0.05 + 0.025 ln(2 * 8192 * 14336 * 8192) = 0.80.
  const double big = GemmTruth::flops(8192, 14336, 8192);
  CHECK(p.roofline.compute.at(big) == Approx(truth.eff_c(big)).margin(0.03));
  CHECK(p.roofline.peaks.source.find("datasheet: h100") == 0);
}

TEST_CASE("extrapolation keeps the fitted efficiency band", "[calibration][predictor]") {
  const GemmTruth truth;
  const auto p = fitted_gemm(truth, 0.0);
  // Far beyond the grid (m = 65536, 256 kB GEMMs of m = 1 at n = k = 256): the efficiency stays inside what
  // the measured points spanned, so the time is never that of the datasheet peak.
  for (auto [m, n, k] : {std::tuple{65536.0, 14336.0, 8192.0}, std::tuple{1.0, 256.0, 256.0}}) {
    const double f = GemmTruth::flops(m, n, k), b = GemmTruth::bytes(m, n, k);
    const auto& c = p.roofline.compute;
    const auto& mem = p.roofline.memory;
    CHECK(c.at(f) >= c.min);
    CHECK(c.at(f) <= c.max);
    CHECK(mem.at(b) >= mem.min);
    CHECK(mem.at(b) <= mem.max);
    const double at_peak = std::max(f / truth.hw.peak_flops("bf16"), b / truth.hw.hbm_bytes_per_s());
    CHECK(p.predict({m, n, k}, f, b) >= at_peak / std::max(c.max, mem.max));
  }
  CHECK(p.roofline.compute.max < 0.9);  // the truth never exceeded 0.80: no jump to peak
}
