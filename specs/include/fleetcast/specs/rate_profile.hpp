#pragma once
// A periodic rate shape for open-loop arrivals (a diurnal cycle, or a trace's hour-by-hour load): equal-width
// bins over `period_s`, the rate in bin i being rate_per_s x multipliers[i] / mean(multipliers), so rate_per_s
// stays the long-run mean. Arrivals are drawn as a constant-rate process in "operational time" tau and placed at
// real time t with Lambda(t) = tau, Lambda(t) = integral of the normalised multiplier from the start (time
// rescaling: a Poisson process stays Poisson with the shaped rate, a gamma process keeps its CV per unit of load).

#include <vector>

namespace fleetcast::specs {

struct RateProfileSpec {
  double period_s = 0.0;            // 0: no profile, a constant rate
  std::vector<double> multipliers;  // >= 0, at least one > 0
  double start_s = 0.0;             // where in the period time 0 falls, [0, period_s) (e.g. 9 h for 09:00)
  bool any() const { return period_s > 0.0; }
  bool operator==(const RateProfileSpec&) const = default;
};

// Lambda(t) for t >= 0: operational seconds elapsed by real time t; Lambda(period_s) = period_s from any start.
double operational_time_s(const RateProfileSpec& p, double real_s);
// The inverse: the real time at which `operational_s` of operational time have elapsed (never inside a bin whose
// multiplier is 0: arrivals skip those).
double real_time_s(const RateProfileSpec& p, double operational_s);

}  // namespace fleetcast::specs
