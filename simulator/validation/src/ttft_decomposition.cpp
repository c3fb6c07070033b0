// TTFT = a + k x p(isl) by least squares over rows that differ only in isl (ttft_decomposition.hpp).
#include "fleetcast/validation/ttft_decomposition.hpp"

#include <cmath>
#include <tuple>

#include "decomposition_common.hpp"
#include "fleetcast/validation/prompt_cost.hpp"

namespace fleetcast::validation {

std::vector<TtftDecomposition> decompose_ttft(const ValidationResult& result) {
  const detail::RowsByLength by_key = detail::rows_by_length(
      result, false, 1, true, [](const RowPrediction& p) { return p.run.ttft_ms; },
      [](const RowPrediction& p) { return p.predicted_ttft_ms; });
  std::vector<TtftDecomposition> out;
  for (const auto& [key, by_isl] : by_key) {
    if (by_isl.size() < 2) continue;
    TtftDecomposition d;
    std::tie(d.group, d.osl, d.layout, d.concurrency) = key;
    std::vector<double> measured, predicted;
    bool priced = true;
    for (const auto& [isl, s] : by_isl) {
      // A drawn spread is priced at its mean prompt, beside decodes at the mean context.
      traces::MeasuredServingRun mean_run = *s.first;
      const double ratio = mean_run.length_range_ratio;
      mean_run.isl = static_cast<int>(std::lround(detail::mean_drawn_length(isl, ratio)));
      const double p =
          marginal_prompt_ms(mean_run, mean_run.isl + static_cast<int>(detail::mean_drawn_length(d.osl, ratio) / 2.0));
      if (!std::isfinite(p)) {
        priced = false;
        break;
      }
      d.isls.push_back(isl);
      d.prompt_ms.push_back(p);
      d.rows += s.rows;
      measured.push_back(s.measured / s.rows);
      predicted.push_back(s.predicted / s.rows);
    }
    // A prompt the model cannot price has no x; prompts priced alike give no slope.
    if (!priced || d.prompt_ms.back() - d.prompt_ms.front() <= 0.0) continue;
    std::tie(d.measured_base_ms, d.measured_prompts) = detail::line_fit(d.prompt_ms, measured);
    std::tie(d.predicted_base_ms, d.predicted_prompts) = detail::line_fit(d.prompt_ms, predicted);
    out.push_back(std::move(d));
  }
  return out;
}

nlohmann::json to_json(const std::vector<TtftDecomposition>& splits) {
  nlohmann::json out = nlohmann::json::array();
  for (const TtftDecomposition& d : splits) {
    out.push_back({{"group", d.group},
                   {"osl", d.osl},
                   {"layout", d.layout},
                   {"concurrency", d.concurrency},
                   {"isls", d.isls},
                   {"prompt_ms", d.prompt_ms},
                   {"rows", d.rows},
                   {"measured_base_ms", d.measured_base_ms},
                   {"measured_prompts", d.measured_prompts},
                   {"predicted_base_ms", d.predicted_base_ms},
                   {"predicted_prompts", d.predicted_prompts}});
  }
  return out;
}

}  // namespace fleetcast::validation
