// TPOT = d + X / (osl - 1) by least squares over rows that differ only in osl (tpot_decomposition.hpp).
#include "fleetcast/validation/tpot_decomposition.hpp"

#include <cmath>
#include <tuple>

#include "decomposition_common.hpp"
#include "fleetcast/validation/prompt_cost.hpp"

namespace fleetcast::validation {

std::vector<TpotDecomposition> decompose_tpot(const ValidationResult& result) {
  // Only a fixed-length closed loop of two clients or more makes every request's TPOT the same split.
  const detail::RowsByLength by_key = detail::rows_by_length(
      result, true, 2, false, [](const RowPrediction& p) { return p.run.tpot_ms; },
      [](const RowPrediction& p) { return p.predicted_tpot_ms; });
  std::vector<TpotDecomposition> out;
  for (const auto& [key, by_osl] : by_key) {
    if (by_osl.size() < 2) continue;
    TpotDecomposition d;
    std::tie(d.group, d.isl, d.layout, d.concurrency) = key;
    std::vector<double> x, measured, predicted;
    for (const auto& [osl, s] : by_osl) {
      d.osls.push_back(osl);
      d.rows += s.rows;
      x.push_back(1.0 / (osl - 1));
      measured.push_back(s.measured / s.rows);
      predicted.push_back(s.predicted / s.rows);
    }
    std::tie(d.measured_step_ms, d.measured_interference_ms) = detail::line_fit(x, measured);
    std::tie(d.predicted_step_ms, d.predicted_interference_ms) = detail::line_fit(x, predicted);
    const int shortest_osl = by_osl.begin()->first;
    d.model_prefill_ms = marginal_prompt_ms(*by_osl.begin()->second.first, d.isl + shortest_osl / 2);
    out.push_back(std::move(d));
  }
  return out;
}

nlohmann::json to_json(const std::vector<TpotDecomposition>& splits) {
  nlohmann::json out = nlohmann::json::array();
  for (const TpotDecomposition& d : splits) {
    out.push_back({{"group", d.group},
                   {"isl", d.isl},
                   {"layout", d.layout},
                   {"concurrency", d.concurrency},
                   {"osls", d.osls},
                   {"rows", d.rows},
                   {"measured_step_ms", d.measured_step_ms},
                   {"measured_interference_ms", d.measured_interference_ms},
                   {"predicted_step_ms", d.predicted_step_ms},
                   {"predicted_interference_ms", d.predicted_interference_ms},
                   {"model_prefill_ms",
                    std::isfinite(d.model_prefill_ms) ? nlohmann::json(d.model_prefill_ms) : nlohmann::json(nullptr)}});
  }
  return out;
}

}  // namespace fleetcast::validation
