#pragma once
// What the TPOT and TTFT decompositions share: a row's layout as a key, and a least-squares line.
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fleetcast/traces/serving_results.hpp"
#include "fleetcast/validation/validate_runs.hpp"

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

// The mean of a length the client drew uniformly in [shortest, nominal] (the nominal one without a spread).
inline double mean_drawn_length(int nominal, double range_ratio) {
  if (range_ratio >= 1.0) return nominal;
  return (traces::shortest_drawn_length(nominal, range_ratio) + nominal) / 2.0;
}

// One length's rows of a key: their measured and predicted latencies summed, and the first of them.
struct LengthSums {
  double measured = 0.0, predicted = 0.0;
  int rows = 0;
  const traces::MeasuredServingRun* first = nullptr;
};

// (group, the length held fixed, layout, clients) -> the length that varies -> sums.
using DecompositionKey = std::tuple<std::string, int, std::string, int>;
using RowsByLength = std::map<DecompositionKey, std::map<int, LengthSums>>;

// The predicted aggregated closed-loop rows at fixed lengths (no per-request lengths, no drawn spread unless
// `drawn_too`, at least `min_clients` clients), grouped by key and by the length that varies: the output length when
// `vary_osl`, else the prompt length (the nominal one for a drawn spread). `measured` and `predicted` pick the latency
// the split is of.
template <typename Measured, typename Predicted>
RowsByLength rows_by_length(const ValidationResult& result, bool vary_osl, int min_clients, bool drawn_too,
                            Measured measured, Predicted predicted) {
  RowsByLength out;
  for (const RowPrediction& p : result.rows) {
    const traces::MeasuredServingRun& run = p.run;
    const int varying = vary_osl ? run.osl : run.isl, fixed = vary_osl ? run.isl : run.osl;
    // A fixed-length closed loop gives every request the same lengths and the same company; a drawn spread (each
    // request's lengths uniform in [r L, L]) keeps the company and spreads the lengths about their mean.
    if (!p.predicted || run.mode != "agg" || run.concurrency < min_clients || varying < (vary_osl ? 2 : 1) ||
        run.request_rate_per_s > 0.0 || !run.input_lens.empty() || (run.length_range_ratio < 1.0 && !drawn_too))
      continue;
    LengthSums& s = out[{p.group, fixed, layout_text(run.agg), run.concurrency}][varying];
    s.measured += measured(p);
    s.predicted += predicted(p);
    s.rows += 1;
    if (!s.first) s.first = &run;
  }
  return out;
}

}  // namespace fleetcast::validation::detail
