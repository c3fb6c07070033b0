#pragma once
// Calibration traces made in the test from a known function, so that a fit can be checked against it.
#include <cmath>
#include <random>
#include <string>

#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::test {

inline traces::CalibrationTrace empty_trace(const std::string& device, const std::string& backend) {
  traces::CalibrationTrace t;
  t.header.backend = backend;
  t.header.device = device;
  t.header.cpu_model = "test";
  t.header.cpu_cores = 2;
  t.header.git_commit = "0000000";
  t.header.host = "test";
  t.header.date = "2026-01-01T00:00:00Z";
  t.header.plan = "synthetic";
  return t;
}

inline traces::CalibrationMeasurement measurement(const std::string& op, const std::string& dtype,
                                                  nlohmann::ordered_json shape, double time_s, double flops,
                                                  double bytes) {
  traces::CalibrationMeasurement m;
  m.op = op;
  m.dtype = dtype;
  m.shape = std::move(shape);
  m.repetitions = 10;
  m.median_s = m.p10_s = m.p90_s = time_s;
  m.flops = flops;
  m.bytes = bytes;
  m.achieved_tflops = flops / time_s / 1e12;
  m.achieved_gb_per_s = bytes / time_s / 1e9;
  m.checked = true;
  return m;
}

// Multiplicative noise: exp(N(0, sigma)), seeded so a test sees the same trace every run.
class Noise {
 public:
  Noise(double sigma, unsigned seed) : rng_(seed), dist_(0.0, sigma) {}
  double operator()() { return std::exp(dist_(rng_)); }

 private:
  std::mt19937 rng_;
  std::normal_distribution<double> dist_;
};

}  // namespace fleetcast::test
