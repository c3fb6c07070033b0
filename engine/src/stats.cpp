#include "fleetcast/engine/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fleetcast::engine {

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("percentile of no samples");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

Percentiles percentiles(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return {percentile(samples, 0.1), percentile(samples, 0.5), percentile(samples, 0.9)};
}

}  // namespace fleetcast::engine
