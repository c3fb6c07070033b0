#include "fleetcast/simulator/steady_state.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

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

double prompt_alone_s(const StepTimeModel& model, int tokens_per_step, int prompt_tokens) {
  double total_s = 0.0;
  for (int done = 0; done < prompt_tokens; done += tokens_per_step) {
    const int chunk = std::min(tokens_per_step, prompt_tokens - done);
    BatchShape b;
    b.prefill.push_back({chunk, done, done + chunk == prompt_tokens});
    total_s += model.predict(b).total_s;
  }
  return total_s;
}

PrefillPoint prefill_point(const StepTimeModel& model, const specs::DeploymentSpec& d, int tokens_per_rank,
                           int prompt_tokens) {
  PrefillPoint p;
  p.tokens_per_rank = tokens_per_rank;
  p.prompt_tokens = prompt_tokens;
  // A rank's step budget is filled from a stream of identical prompts, back to back (chunked prefill packs the
  // next prompt into what the last chunk of one leaves, and a budget above the prompt holds several prompts).
  // The schedule repeats after lcm(budget, prompt) tokens: tokens_per_rank / gcd prompts, capped at 64 (the
  // partial last step of the cap then moves the mean by under 1/64).
  const int prompts = std::min(tokens_per_rank / std::gcd(tokens_per_rank, prompt_tokens), 64);
  const long long period_tokens = static_cast<long long>(prompts) * prompt_tokens;
  double total_s = 0.0, prompt_s_sum = 0.0;
  int prompt_done = 0;  // tokens of the current prompt already computed
  double prompt_start_s = 0.0;
  for (long long done = 0; done < period_tokens;) {
    BatchShape b;
    int budget = static_cast<int>(std::min<long long>(tokens_per_rank, period_tokens - done));
    std::vector<bool> started;  // whether each piece starts its prompt
    while (budget > 0) {
      const int chunk = std::min(budget, prompt_tokens - prompt_done);
      b.prefill.push_back({chunk, prompt_done, prompt_done + chunk == prompt_tokens});
      started.push_back(prompt_done == 0);
      budget -= chunk;
      done += chunk;
      prompt_done += chunk;
      if (prompt_done == prompt_tokens) {
        prompt_done = 0;
      }
    }
    const StepTime t = model.predict(b);
    // A prompt's time runs from the start of the step holding its first token to the end of the one holding its
    // last. Pieces are in stream order: a piece that starts a prompt starts it at this step's start.
    for (std::size_t i = 0; i < b.prefill.size(); ++i) {
      if (started[i]) prompt_start_s = total_s;
      if (b.prefill[i].completes_prompt) {
        prompt_s_sum += total_s + t.total_s - prompt_start_s;
        p.last_step = t;
      }
    }
    total_s += t.total_s;
    ++p.steps;
  }
  p.prompts = prompts;
  p.mean_step_s = total_s / p.steps;
  p.mean_prompt_s = prompt_s_sum / prompts;
  // Every rank computes its own prompts: dp x tokens per step over the replica's GPUs.
  p.input_tokens_per_s_per_gpu = static_cast<double>(period_tokens) * d.replica.dp / (total_s * d.replica.gpus());
  return p;
}

}  // namespace fleetcast::simulator
