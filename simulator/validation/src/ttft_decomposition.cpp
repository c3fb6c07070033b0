// TTFT = a + k x p(isl) by least squares over rows that differ only in isl (ttft_decomposition.hpp).
#include "fleetcast/validation/ttft_decomposition.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "decomposition_common.hpp"
#include "fleetcast/validation/prompt_cost.hpp"

namespace fleetcast::validation {
namespace {

struct Sums {
  double measured = 0.0, predicted = 0.0;
  int rows = 0;
  const traces::MeasuredServingRun* first = nullptr;
};

}  // namespace

std::vector<TtftDecomposition> decompose_ttft(const ValidationResult& result) {
  using Key = std::tuple<std::string, int, std::string, int>;
  std::map<Key, std::map<int, Sums>> by_key;  // key -> isl -> sums
  for (const RowPrediction& p : result.rows) {
    const traces::MeasuredServingRun& run = p.run;
    // Only a fixed-length closed loop gives every request the same prompt and the same company.
    if (!p.predicted || run.mode != "agg" || run.concurrency < 1 || run.isl < 1 || run.request_rate_per_s > 0.0 ||
        !run.input_lens.empty() || run.length_range_ratio < 1.0)
      continue;
    Sums& s = by_key[{p.group, run.osl, detail::layout_text(run.agg), run.concurrency}][run.isl];
    s.measured += run.ttft_ms;
    s.predicted += p.predicted_ttft_ms;
    s.rows += 1;
    if (!s.first) s.first = &run;
  }
  std::vector<TtftDecomposition> out;
  for (const auto& [key, by_isl] : by_key) {
    if (by_isl.size() < 2) continue;
    TtftDecomposition d;
    std::tie(d.group, d.osl, d.layout, d.concurrency) = key;
    std::vector<double> measured, predicted;
    bool priced = true;
    for (const auto& [isl, s] : by_isl) {
      const double p = marginal_prompt_ms(*s.first, isl + d.osl / 2);
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
