#pragma once
// What the TPOT and TTFT decompositions share: a row's layout as a key, and a least-squares line.
#include <string>
#include <utility>
#include <vector>

#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::validation::detail {

inline std::string layout_text(const traces::MeasuredLayout& l) {
  return "tp" + std::to_string(l.tp) + " pp" + std::to_string(l.pp) + " dp" + std::to_string(l.attention_dp) +
         " moe_tp" + std::to_string(l.moe_tp) + " ep" + std::to_string(l.moe_ep);
}

// The intercept and slope of the least-squares line through (x, y).
inline std::pair<double, double> line_fit(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0.0, my = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(x.size());
  my /= static_cast<double>(x.size());
  double sxx = 0.0, sxy = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  const double slope = sxy / sxx;
  return {my - slope * mx, slope};
}

}  // namespace fleetcast::validation::detail
