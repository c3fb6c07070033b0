// Measured engine iterations against the step-time model (step_check.hpp).
#include "fleetcast/validation/step_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "fleetcast/stats/summary.hpp"

namespace fleetcast::validation {
namespace {

// n shares of `total` that differ by at most one, the larger first; they sum to `total`.
std::vector<long long> even_shares(long long total, int n) {
  std::vector<long long> out(static_cast<std::size_t>(n), total / n);
  for (long long i = 0; i < total % n; ++i) ++out[static_cast<std::size_t>(i)];
  return out;
}

double median_of(std::vector<double> v) { return stats::summarize(std::move(v)).p50; }

StepCheckGroup summarize_group(const std::string& key, const std::vector<const StepCheckRow*>& rows) {
  std::vector<double> measured, predicted, ratio, ape;
  for (const StepCheckRow* r : rows) {
    measured.push_back(1e3 * r->step.latency_s);
    predicted.push_back(1e3 * r->predicted_s);
    ratio.push_back(r->ratio);
    ape.push_back(r->ape);
  }
  StepCheckGroup g;
  g.key = key;
  g.steps = static_cast<int>(rows.size());
  g.measured_median_ms = median_of(measured);
  g.predicted_median_ms = median_of(predicted);
  g.median_ratio = median_of(ratio);
  const stats::Summary a = stats::summarize(ape);
  g.median_ape = a.p50;
  g.p90_ape = a.p90;
  return g;
}

}  // namespace

simulator::BatchShape batch_of(const traces::MeasuredStep& step, bool speculative) {
  simulator::BatchShape b;
  if (step.prefill_requests > 0) {
    const auto tokens = even_shares(step.prefill_tokens, step.prefill_requests);
    const auto cached = even_shares(step.prefill_kv_tokens, step.prefill_requests);
    for (int i = 0; i < step.prefill_requests; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (tokens[k] == 0) continue;  // more requests than tokens: nothing of this one computed
      b.prefill.push_back({static_cast<int>(tokens[k]), static_cast<int>(cached[k]), true});
    }
  }
  if (step.decode_requests > 0) {
    for (long long c : even_shares(step.decode_kv_tokens, step.decode_requests)) {
      b.decode_contexts.push_back(static_cast<int>(c));
    }
    if (speculative) {
      b.draft_tokens =
          static_cast<int>(std::lround(static_cast<double>(step.decode_tokens) / step.decode_requests) - 1);
    }
  }
  return b;
}

StepCheck check_steps(const simulator::StepTimeModel& model, const traces::ForwardPassMetrics& fpm, bool speculative) {
  StepCheck out;
  out.empty_steps = fpm.empty_steps;
  for (const traces::MeasuredStep& s : fpm.steps) {
    StepCheckRow r;
    r.step = s;
    r.predicted_s = model.predict(batch_of(s, speculative)).total_s;
    r.ratio = r.predicted_s / s.latency_s;
    r.ape = std::abs(r.ratio - 1.0);
    if (!speculative && s.decode_tokens > s.decode_requests) ++out.steps_with_uncosted_drafts;
    out.rows.push_back(std::move(r));
  }
  bool segments = false;
  for (const auto& r : out.rows) segments = segments || !r.step.segment.empty();
  std::map<std::string, std::vector<const StepCheckRow*>> by_key;
  std::vector<const StepCheckRow*> all;
  for (const auto& r : out.rows) {
    by_key[segments ? r.step.segment + " | " + r.step.phase : r.step.phase].push_back(&r);
    all.push_back(&r);
  }
  for (const auto& [key, rows] : by_key) out.groups.push_back(summarize_group(key, rows));
  out.groups.push_back(summarize_group("all", all));
  return out;
}

}  // namespace fleetcast::validation
