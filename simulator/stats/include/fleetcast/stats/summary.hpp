#pragma once
// Mean and percentiles of a set of per-request figures (TTFT, TPOT, end-to-end latency), computed the way
// `vllm bench serve` computes them (np.mean, np.percentile with its default "linear" method), so that a predicted
// p99 and a measured p99 are the same statistic of the same kind of sample.

#include <cstddef>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

namespace fleetcast::stats {

// Empty input: count 0 and every other field NaN (no value is better than a made-up 0).
struct Summary {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::size_t count = 0;
  double mean = kNaN, p50 = kNaN, p90 = kNaN, p95 = kNaN, p99 = kNaN, min = kNaN, max = kNaN;
};

// Takes the values by value and sorts them. Throws std::invalid_argument for a NaN or infinite value: one would
// poison the mean and every percentile above it, and it always means a bug upstream (TPOT of a 1-token request).
Summary summarize(std::vector<double> values);

// The q-th percentile (q in [0, 100]) of values sorted ascending, by linear interpolation between the closest
// ranks: index h = (n - 1) * q / 100, result = s[floor h] + (h - floor h) * (s[floor h + 1] - s[floor h]).
// Matches np.percentile(..., method="linear") to the last bit. Empty input: NaN. Throws std::invalid_argument
// for q outside [0, 100]. Sortedness is the caller's promise (checked by assert in debug builds only).
double percentile_sorted(const std::vector<double>& sorted, double q);

// {"count", "mean", "p50", "p90", "p95", "p99", "min", "max"}; every field but count multiplied by scale
// (1000: seconds to milliseconds). Non-finite values, as in an empty Summary, are written as null.
nlohmann::json to_json(const Summary& summary, double scale = 1.0);

}  // namespace fleetcast::stats
