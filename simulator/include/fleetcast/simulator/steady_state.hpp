#pragma once
// Steady-state figures of one replica repeating one kind of step, as DeepInfer's launch sweeps measure them
// (REFERENCE.md section 1): a decode point is a fixed number of requests per attention-DP rank, all at one
// context; a prefill point is every rank prefilling its own prompt in chunks of a fixed token count. Neither
// includes queueing or network: these are per-step figures, not end-to-end request latency.

#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

struct DecodePoint {
  int requests_per_rank = 0;
  int context_tokens = 0;
  double step_s = 0.0;
  double acceptance_length = 1.0;  // tokens a sequence gains per step (1 without speculative decoding)
  double tokens_per_s_per_user = 0.0;
  double output_tokens_per_s_per_gpu = 0.0;
  StepTime step;
};

struct PrefillPoint {
  int tokens_per_rank = 0;  // prompt tokens one DP rank computes per step
  int prompt_tokens = 0;
  int prompts = 0;  // prompts in one period of the schedule (1 when the step budget divides the prompt)
  int steps = 0;    // steps the period takes (the prompt's chunks when the budget divides it)
  double mean_step_s = 0.0;
  double mean_prompt_s = 0.0;  // from the start of a prompt's first step to the end of its last: its TTFT
  double input_tokens_per_s_per_gpu = 0.0;
  StepTime last_step;  // the last step that completes a prompt (the longest context)
};

// Every DP rank decodes `requests_per_rank` sequences at `context_tokens`, with the deployment's drafts.
DecodePoint decode_point(const StepTimeModel& model, const specs::DeploymentSpec& d, int requests_per_rank,
                         int context_tokens);

// Every DP rank prefills a stream of `prompt_tokens` prompts in steps of `tokens_per_rank` tokens (chunks of a
// longer prompt, several prompts in a larger step); the step time is averaged over one period of the schedule
// (each later chunk attends a longer context).
PrefillPoint prefill_point(const StepTimeModel& model, const specs::DeploymentSpec& d, int tokens_per_rank,
                           int prompt_tokens);

// One prompt alone, its chunks of at most `tokens_per_step` back to back: the floor of its time to first token.
double prompt_alone_s(const StepTimeModel& model, int tokens_per_step, int prompt_tokens);

}  // namespace fleetcast::simulator
