#pragma once
// The step-time model against engine iterations a serving engine measured (Dynamo's forward-pass metrics,
// traces/forward_pass_metrics.hpp): each measured step's batch costed by the scenario's step model and profile,
// with the error per phase. This checks the step model alone, apart from the clients, the scheduler and the front
// end that a closed-loop benchmark's TTFT and TPOT also hold.

#include <string>
#include <vector>

#include "fleetcast/simulator/batch.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/traces/forward_pass_metrics.hpp"

namespace fleetcast::validation {

// The batch one measured step ran, as the step model takes it. The file gives sums per step, not per request, so
// the prefill tokens and their cached context, and the decoding requests' contexts, are spread evenly over the
// requests (remainders to the first ones): the sums the model's linear terms see are exact; the quadratic
// attention of unequal prompts in one step is not. `draft_tokens` per decoding request come from the decode
// tokens only where `speculative` (the scenario's model runs drafts); else drafts in the file are not costed.
simulator::BatchShape batch_of(const traces::MeasuredStep& step, bool speculative);

struct StepCheckRow {
  traces::MeasuredStep step;
  double predicted_s = 0.0;
  double ratio = 0.0;  // predicted / measured
  double ape = 0.0;    // |predicted - measured| / measured
};

struct StepCheckGroup {
  std::string key;  // "context", "decode", "mixed" (prefixed "segment | " where the file names segments), "all"
  int steps = 0;
  double measured_median_ms = 0.0;
  double predicted_median_ms = 0.0;
  double median_ratio = 0.0;
  double median_ape = 0.0;
  double p90_ape = 0.0;
};

struct StepCheck {
  std::vector<StepCheckRow> rows;
  std::vector<StepCheckGroup> groups;  // by phase (and segment), then "all"
  int empty_steps = 0;                 // idle iterations in the file, not costed
  int steps_with_uncosted_drafts = 0;  // decode tokens beyond one per request, the scenario has no drafts
};

StepCheck check_steps(const simulator::StepTimeModel& model, const traces::ForwardPassMetrics& fpm, bool speculative);

}  // namespace fleetcast::validation
