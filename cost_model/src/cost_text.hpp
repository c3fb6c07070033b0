#pragma once
// Numbers and money in the sentences and errors of the cost model, shared by cost.cpp and fleet_cost.cpp.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace fleetcast::cost_model::detail {

// Shortest faithful text for a number in a sentence: "%.6g" drops the float noise of 3 * (1 - 0.2).
inline std::string number_text(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

// Money as people write it: whole cents with two decimals ("$2.40"), finer prices as they are ("$2.125").
inline std::string usd_text(double x) {
  double cents = x * 100.0;
  if (std::abs(cents - std::round(cents)) < 1e-6 * std::max(1.0, std::abs(cents))) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "$%.2f", x);
    return buf;
  }
  return "$" + number_text(x);
}

[[noreturn]] inline void invalid(const std::string& field, double value, const std::string& valid) {
  throw std::invalid_argument("cost_model: " + field + " = " + number_text(value) + ": must be " + valid);
}

inline void require_non_negative(const std::string& field, double value) {
  if (!std::isfinite(value) || value < 0.0) invalid(field, value, "a finite number >= 0");
}

}  // namespace fleetcast::cost_model::detail
