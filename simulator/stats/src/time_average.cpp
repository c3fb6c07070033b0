// Time-weighted average of a piecewise-constant signal.

#include "fleetcast/stats/time_average.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

namespace fleetcast::stats {
namespace {

[[noreturn]] void invalid(const std::string& what) {
  throw std::invalid_argument("stats::time_average: " + what);
}

void validate(const std::vector<double>& t, const std::vector<double>& v, double t_end) {
  if (t.size() != v.size()) {
    invalid("t has " + std::to_string(t.size()) + " samples and v has " + std::to_string(v.size()) +
            ": they must have one value per time");
  }
  if (!std::isfinite(t_end)) invalid("t_end = " + std::to_string(t_end) + ": must be finite");
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!std::isfinite(t[i]) || !std::isfinite(v[i])) {
      invalid("sample [" + std::to_string(i) + "] = (" + std::to_string(t[i]) + ", " + std::to_string(v[i]) +
              "): times and values must be finite");
    }
    if (i > 0 && t[i] < t[i - 1]) {
      invalid("t[" + std::to_string(i) + "] = " + std::to_string(t[i]) + " < t[" + std::to_string(i - 1) +
              "] = " + std::to_string(t[i - 1]) + ": times must not decrease");
    }
  }
  if (!t.empty() && t_end < t.front()) {
    invalid("t_end = " + std::to_string(t_end) + " < t[0] = " + std::to_string(t.front()) +
            ": the averaging span must not be negative");
  }
}

}  // namespace

double time_average(const std::vector<double>& t, const std::vector<double>& v, double t_end) {
  validate(t, v, t_end);
  if (t.empty() || t_end == t.front()) return std::numeric_limits<double>::quiet_NaN();

  double integral = 0.0;
  for (std::size_t i = 0; i < t.size() && t[i] < t_end; ++i) {
    // Each value holds until the next sample or t_end, whichever comes first.
    double until = (i + 1 < t.size()) ? std::min(t[i + 1], t_end) : t_end;
    integral += v[i] * (until - t[i]);
  }
  return integral / (t_end - t.front());
}

}  // namespace fleetcast::stats
