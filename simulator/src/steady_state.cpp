#include "fleetcast/simulator/steady_state.hpp"

#include <algorithm>

#include "fleetcast/simulator/speculative.hpp"

namespace fleetcast::simulator {

DecodePoint decode_point(const StepTimeModel& model, const specs::DeploymentSpec& d, int requests_per_rank,
                         int context_tokens) {
  DecodePoint p;
  p.requests_per_rank = requests_per_rank;
  p.context_tokens = context_tokens;
  BatchShape b;
  b.decode_contexts.assign(static_cast<std::size_t>(requests_per_rank), context_tokens);
  b.draft_tokens = d.speculative ? d.speculative->num_draft_tokens : 0;
  p.step = model.predict(b);
  p.step_s = p.step.total_s;
  p.acceptance_length = d.speculative ? analytic_acceptance_length(*d.speculative) : 1.0;
  p.tokens_per_s_per_user = p.acceptance_length / p.step_s;
  // A replica's dp ranks each run the batch; its GPUs are dp x tp x pp.
  const double sequences = static_cast<double>(requests_per_rank) * d.replica.dp;
  p.output_tokens_per_s_per_gpu = sequences * p.tokens_per_s_per_user / d.replica.gpus();
  return p;
}

PrefillPoint prefill_point(const StepTimeModel& model, const specs::DeploymentSpec& d, int tokens_per_rank,
                           int prompt_tokens) {
  PrefillPoint p;
  p.tokens_per_rank = tokens_per_rank;
  p.prompt_tokens = prompt_tokens;
  double total_s = 0.0, total_tokens = 0.0;
  for (int done = 0; done < prompt_tokens; done += tokens_per_rank) {
    const int chunk = std::min(tokens_per_rank, prompt_tokens - done);
    BatchShape b;
    b.prefill.push_back({chunk, done, done + chunk == prompt_tokens});
    p.last_step = model.predict(b);
    total_s += p.last_step.total_s;
    total_tokens += chunk;
    ++p.steps;
  }
  p.mean_step_s = total_s / p.steps;
  // Every rank computes its own prompt: dp x tokens per step over the replica's GPUs.
  p.input_tokens_per_s_per_gpu = total_tokens * d.replica.dp / (total_s * d.replica.gpus());
  return p;
}

}  // namespace fleetcast::simulator
