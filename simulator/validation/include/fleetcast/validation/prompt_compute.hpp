#pragma once
// Whether a measured closed-loop run's request rate left its GPUs the time to prefill every prompt in full.
// C clients with mean TTFT t and TPOT p over o output tokens finish at most C / (t + (o - 1) p + z) requests a
// second (z: the pause a client takes between requests, if any; fewer where it takes longer), and a prompt of i tokens
// needs at least 2 x i FLOPs per parameter a token multiplies by (the LM head, which a prefill runs for one token, left
// out; attention not counted). Held against the run's GPUs at the best GEMM rate measured on them at kernel level (the
// datasheet profile's matmul efficiency: MAMF) in the fastest format its weights allow, a share above 1 cannot have
// been computed: the run's prompts came out of a prefix cache (a client cycling through a small set of prompts, say) or
// were shorter than the run says. Such a run's TTFT and TPOT are not the engine's for those lengths, whatever the
// model. docs/ACCURACY.md, "Three outlier groups read against what the hardware can do".

#include <optional>
#include <string>

#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::validation {

struct PromptComputeNeed {
  double share = 0.0;  // prompt FLOP/s at the measured rate over the GPUs' best GEMM FLOP/s
  std::string format;  // the weight format that best rate is taken in ("fp8", "bf16", ...)
  int gpus = 0;        // the run's GPUs
  double requests_per_s = 0.0;
  bool impossible() const { return share > 1.0; }
};

// For a scenario of one closed-loop class on an aggregated deployment and positive measured means; nullopt else.
std::optional<PromptComputeNeed> prompt_compute_need(const specs::ScenarioSpec& s, double ttft_ms, double tpot_ms);

// "its measured rate needs 1.23x the best FP8 GEMM rate of its 1 GPU for the prompts alone: prompts served from a
// prefix cache or shorter than stated"
std::string describe(const PromptComputeNeed& n);

}  // namespace fleetcast::validation
