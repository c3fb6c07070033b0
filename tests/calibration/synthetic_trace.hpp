#pragma once
// Calibration traces made in the test from a known function, so that a fit can be checked against it.
#include <algorithm>
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

namespace fleetcast::test {

// A point-to-point transfer curve as NCCL's look: t = latency + bytes / (bandwidth x efficiency(bytes)), the
// efficiency rising with ln(bytes) from `eff_min` at 1 KiB until it saturates at `eff_max` (protocol and
// chunking overheads amortised).
struct TransferCurve {
  double latency_s = 8e-6;
  double bytes_per_s = 450e9;  // H100 NVLink, one direction
  double eff_min = 0.30, eff_slope = 0.06, eff_max = 0.85;
  double efficiency(double bytes) const {
    return std::clamp(eff_min + eff_slope * std::log(bytes / 1024.0), eff_min, eff_max);
  }
  double time_s(double bytes) const { return latency_s + bytes / (bytes_per_s * efficiency(bytes)); }
};

// send_recv records of `curve` from 1 KiB to 256 MiB in steps of 2x between `gpus` GPUs, with noise.
inline traces::CalibrationTrace send_recv_trace(const std::string& device, const TransferCurve& curve, int gpus,
                                                double sigma, unsigned seed) {
  traces::CalibrationTrace t = empty_trace(device, "cuda");
  Noise noise(sigma, seed);
  for (double bytes = 1024.0; bytes <= 268435456.0; bytes *= 2.0) {
    auto m = measurement("send_recv", "bf16", {{"bytes", static_cast<long long>(bytes)}, {"gpus", gpus}},
                         curve.time_s(bytes) * noise(), 0.0, bytes);
    m.gpus = gpus;
    t.measurements.push_back(m);
  }
  return t;
}

}  // namespace fleetcast::test
