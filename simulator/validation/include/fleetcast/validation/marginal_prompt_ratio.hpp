#pragma once
// How much longer an engine takes for a longer prompt than a profile's step model says, per (GPU, runtime, kind of
// model). In a TTFT split (ttft_decomposition.hpp) of rows simulated with the clients as they ran, k measured over k
// predicted is the engine's marginal prompt over the step model's: fixed costs per request and the wait for a step
// cancel. Few clients keep the queue short, so the ratio reads the prompt's own time; with many, a slower prefill
// also lengthens the queue the next prompt waits in, and the ratio grows with the load (docs/ACCURACY.md, "A prompt's
// slowdown on a GPU without a fit").

#include <string>
#include <vector>

#include "fleetcast/traces/serving_results.hpp"
#include "fleetcast/validation/ttft_decomposition.hpp"
#include "fleetcast/validation/validate_runs.hpp"

namespace fleetcast::validation {

// The splits `calibrate prompt-ratio` reads by default, and the shipped ratios were measured at: at most this many
// clients, the longest prompt at least this many tokens.
inline constexpr int kPromptRatioMaxClients = 8;
inline constexpr int kPromptRatioMinPrompt = 4096;

struct MarginalPromptRatio {
  std::string hardware;        // the hardware preset, as the group names it
  std::string runtime;         // vllm, sglang, trtllm
  std::string model_kind;      // "dense" or "moe"
  std::vector<double> ratios;  // k measured / k predicted, one per split, ascending
  double median = 0.0;
};

// The TTFT splits of `results` simulated with the datasheet profiles, which the ratio is measured against
// (FLEETCAST_PROFILES=datasheet for the call and the worker processes it starts; the variable is restored after).
std::vector<TtftDecomposition> datasheet_ttft_splits(const traces::MeasuredServingResults& results,
                                                     const ValidateOptions& options);

// The splits of aggregated runs at no more than `max_clients` clients whose longest prompt has at least
// `min_longest_prompt` tokens and whose model is a preset, grouped by (hardware, runtime, kind of model) in that
// order. Short prompts alone say nothing of the GPU's prefill: where an engine launches a prompt's kernels from the
// host one by one, a prompt of a few hundred tokens takes as long as the launching (Qwen3-235B on H100 under
// TensorRT-LLM measures the same TTFT at 256 and 1,024 tokens). A split either k of which is not positive says nothing
// either and is skipped. `leave_out_model` (a model preset's name) drops that model's splits: the ratio a fit that
// never saw the model would have measured (calibrate serving --cross-validate --prompt-slowdown).
std::vector<MarginalPromptRatio> marginal_prompt_ratios(const std::vector<TtftDecomposition>& splits, int max_clients,
                                                        int min_longest_prompt,
                                                        const std::string& leave_out_model = "");

}  // namespace fleetcast::validation
