// Mean and percentiles of unweighted samples, as numpy (and hence vllm bench serve) computes them.

#include "fleetcast/stats/summary.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

#include "fleetcast/stats/json_number.hpp"

namespace fleetcast::stats {
namespace {

// numpy's _lerp: a + (b - a) * t, but b - (b - a) * (1 - t) once t >= 0.5. The second form is exact at t = 1 and
// is what numpy returns, so copying it keeps our percentiles bit-identical to np.percentile's.
double lerp_like_numpy(double a, double b, double t) {
  double diff = b - a;
  if (t >= 0.5) return b - diff * (1.0 - t);
  return a + diff * t;
}

}  // namespace

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (!(q >= 0.0 && q <= 100.0)) {
    throw std::invalid_argument("stats::percentile_sorted: q = " + std::to_string(q) + ": must be in [0, 100]");
  }
  assert(std::is_sorted(sorted.begin(), sorted.end()));
  if (sorted.empty()) return Summary::kNaN;

  std::size_t n = sorted.size();
  // Same order of operations as numpy: quantile = q / 100 first, then the virtual index (n - 1) * quantile.
  double quantile = q / 100.0;
  double h = static_cast<double>(n - 1) * quantile;
  if (h >= static_cast<double>(n - 1)) return sorted.back();
  double lo = std::floor(h);
  auto i = static_cast<std::size_t>(lo);
  return lerp_like_numpy(sorted[i], sorted[i + 1], h - lo);
}

Summary summarize(std::vector<double> values) {
  Summary s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw std::invalid_argument("stats::summarize: value [" + std::to_string(i) + "] = " +
                                  std::to_string(values[i]) + ": every value must be finite");
    }
  }
  if (values.empty()) return s;

  // One full sort serves all five percentiles and min/max; nth_element per percentile would cost about as much.
  std::sort(values.begin(), values.end());
  double sum = 0.0;
  for (double x : values) sum += x;

  s.count = values.size();
  s.mean = sum / static_cast<double>(values.size());
  s.p50 = percentile_sorted(values, 50.0);
  s.p90 = percentile_sorted(values, 90.0);
  s.p95 = percentile_sorted(values, 95.0);
  s.p99 = percentile_sorted(values, 99.0);
  s.min = values.front();
  s.max = values.back();
  return s;
}

nlohmann::json to_json(const Summary& summary, double scale) {
  return nlohmann::json{
      {"count", summary.count},
      {"mean", number_or_null(summary.mean * scale)},
      {"p50", number_or_null(summary.p50 * scale)},
      {"p90", number_or_null(summary.p90 * scale)},
      {"p95", number_or_null(summary.p95 * scale)},
      {"p99", number_or_null(summary.p99 * scale)},
      {"min", number_or_null(summary.min * scale)},
      {"max", number_or_null(summary.max * scale)},
  };
}

}  // namespace fleetcast::stats
