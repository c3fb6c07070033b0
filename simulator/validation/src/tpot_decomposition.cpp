// TPOT = d + X / (osl - 1) by least squares over rows that differ only in osl (tpot_decomposition.hpp).
#include "fleetcast/validation/tpot_decomposition.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/serving_mapping.hpp"

namespace fleetcast::validation {
namespace {

struct Sums {
  double measured = 0.0, predicted = 0.0;
  int rows = 0;
  const traces::MeasuredServingRun* first = nullptr;
};

// One prompt's marginal step time beside the other clients' decodes, in the step model with the profile in use.
double model_prefill_ms(const traces::MeasuredServingRun& run, int shortest_osl) {
  const auto mapped = map_serving_run(run);
  if (!std::holds_alternative<MappedRun>(mapped)) return NAN;
  try {
    const specs::ScenarioSpec s = specs::parse_scenario(std::get<MappedRun>(mapped).scenario, run.id);
    const simulator::StepTimeModel model(s.model, s.deployment,
                                         calibration::profile_for(s.deployment.hardware, s.deployment.runtime));
    const int dp = std::max(1, s.deployment.replica.dp);
    simulator::BatchShape decodes;
    decodes.decode_contexts.assign(static_cast<std::size_t>((run.concurrency - 1 + dp - 1) / dp),
                                   run.isl + shortest_osl / 2);
    simulator::BatchShape mixed = decodes;
    mixed.prefill.push_back({run.isl, 0, true});
    return 1e3 * (model.predict(mixed).total_s - model.predict(decodes).total_s);
  } catch (const std::exception&) {
    return NAN;  // a row validate could not simulate either
  }
}

std::string layout_text(const traces::MeasuredLayout& l) {
  return "tp" + std::to_string(l.tp) + " pp" + std::to_string(l.pp) + " dp" + std::to_string(l.attention_dp) +
         " moe_tp" + std::to_string(l.moe_tp) + " ep" + std::to_string(l.moe_ep);
}

// The intercept and slope of the least-squares line through (x, y).
std::pair<double, double> line_fit(const std::vector<double>& x, const std::vector<double>& y) {
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

}  // namespace

std::vector<TpotDecomposition> decompose_tpot(const ValidationResult& result) {
  using Key = std::tuple<std::string, int, std::string, int>;
  std::map<Key, std::map<int, Sums>> by_key;  // key -> osl -> sums
  for (const RowPrediction& p : result.rows) {
    const traces::MeasuredServingRun& run = p.run;
    // Only a fixed-length closed loop makes every request's TPOT the same split.
    if (!p.predicted || run.mode != "agg" || run.concurrency < 2 || run.osl < 2 || run.request_rate_per_s > 0.0 ||
        !run.input_lens.empty() || run.length_range_ratio < 1.0)
      continue;
    Sums& s = by_key[{p.group, run.isl, layout_text(run.agg), run.concurrency}][run.osl];
    s.measured += run.tpot_ms;
    s.predicted += p.predicted_tpot_ms;
    s.rows += 1;
    if (!s.first) s.first = &run;
  }
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
    std::tie(d.measured_step_ms, d.measured_interference_ms) = line_fit(x, measured);
    std::tie(d.predicted_step_ms, d.predicted_interference_ms) = line_fit(x, predicted);
    d.model_prefill_ms = model_prefill_ms(*by_osl.begin()->second.first, by_osl.begin()->first);
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
