// Time rescaling through a periodic piecewise-constant rate shape (rate_profile.hpp).
#include "fleetcast/specs/rate_profile.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fleetcast::specs {
namespace {

// Lambda from the period's start (phase 0) to `offset_s` in [0, period].
double within_period(const RateProfileSpec& p, double offset_s) {
  const double width = p.period_s / static_cast<double>(p.multipliers.size());
  const double mean =
      std::accumulate(p.multipliers.begin(), p.multipliers.end(), 0.0) / static_cast<double>(p.multipliers.size());
  double elapsed = 0.0;
  for (std::size_t i = 0; i < p.multipliers.size(); ++i) {
    const double bin_start = static_cast<double>(i) * width;
    if (offset_s <= bin_start) break;
    elapsed += std::min(offset_s - bin_start, width) * p.multipliers[i] / mean;
  }
  return elapsed;
}

// Lambda from phase 0 to t >= 0 counted in real seconds from phase 0.
double from_phase_zero(const RateProfileSpec& p, double t) {
  const double periods = std::floor(t / p.period_s);
  return periods * p.period_s + within_period(p, t - periods * p.period_s);
}

// The inverse of from_phase_zero.
double to_phase_zero(const RateProfileSpec& p, double tau) {
  const double periods = std::floor(tau / p.period_s);
  double left = tau - periods * p.period_s;
  const double width = p.period_s / static_cast<double>(p.multipliers.size());
  const double mean =
      std::accumulate(p.multipliers.begin(), p.multipliers.end(), 0.0) / static_cast<double>(p.multipliers.size());
  for (std::size_t i = 0; i < p.multipliers.size(); ++i) {
    const double bin = width * p.multipliers[i] / mean;  // operational seconds this bin holds
    if (left < bin) return periods * p.period_s + static_cast<double>(i) * width + left / (p.multipliers[i] / mean);
    left -= bin;
  }
  // Rounding put tau at the very end of the period: the start of the next one's first non-empty bin.
  return to_phase_zero(p, (periods + 1.0) * p.period_s);
}

}  // namespace

double operational_time_s(const RateProfileSpec& p, double real_s) {
  if (!p.any()) return real_s;
  return from_phase_zero(p, p.start_s + real_s) - from_phase_zero(p, p.start_s);
}

double real_time_s(const RateProfileSpec& p, double operational_s) {
  if (!p.any()) return operational_s;
  return to_phase_zero(p, from_phase_zero(p, p.start_s) + operational_s) - p.start_s;
}

}  // namespace fleetcast::specs
