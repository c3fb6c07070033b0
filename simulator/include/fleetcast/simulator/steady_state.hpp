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
  int steps = 0;  // chunks the prompt takes
  double mean_step_s = 0.0;
  double input_tokens_per_s_per_gpu = 0.0;
  StepTime last_step;  // the chunk at the end of the prompt (the longest context)
};

// Every DP rank decodes `requests_per_rank` sequences at `context_tokens`, with the deployment's drafts.
DecodePoint decode_point(const StepTimeModel& model, const specs::DeploymentSpec& d, int requests_per_rank,
                         int context_tokens);

// Every DP rank prefills a `prompt_tokens` prompt in chunks of `tokens_per_rank`; the step time is averaged
// over the chunks (each later chunk attends a longer context).
PrefillPoint prefill_point(const StepTimeModel& model, const specs::DeploymentSpec& d, int tokens_per_rank,
                           int prompt_tokens);

}  // namespace fleetcast::simulator
