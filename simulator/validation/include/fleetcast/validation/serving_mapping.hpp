#pragma once
// A measured serving run (traces/serving_results.hpp) as a scenario the simulator can replay: the model and
// hardware presets its names stand for, its layout, the engine's scheduler, and closed-loop clients sending
// fixed-length requests. A run that cannot be mapped says why; nothing is guessed.

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::validation {

// The scenario as JSON (what `fleetcast simulate` would read: parse it with specs::parse_scenario) and the
// assumptions the mapping made that the row did not state.
struct MappedRun {
  nlohmann::json scenario;
  std::string group;  // "model | system | backend | mode": the rows summarised together
  std::string notes;  // "" or "; "-separated assumptions, e.g. "concurrency from batch_size x attention_dp_size"
};

struct Unmapped {
  std::string reason;
};

// Model: the preset model_for_checkpoint (checkpoint_names.hpp) finds for model_path
// (nvidia/Llama-3.1-8B-Instruct-FP8 -> llama-3.1-8b; noted where it is another checkpoint's architecture).
// Precisions from gemm_quant_mode (attention and dense weights) and moe_quant_mode (routed experts), else the
// precision column, else the preset's; a quantized run (FP8 or FP4 weights) keeps its KV cache in FP8.
// Hardware: the system without "_sxm". Runtime and scheduler: the backend (vllm, sglang, trtllm) with the
// engine's default token budget on that GPU. Layout: workers of tp x pp x attention_dp GPUs, experts over
// moe_ep with moe_tp = tp x dp / moe_ep (a row whose moe_tp disagrees is unmapped); one worker, or for a CSV
// row whose concurrency is k x batch_size x attention_dp_size, k workers behind a round-robin router.
// Disaggregated rows need both pools' worker counts and batch sizes, except at one client, where they cannot
// change the result. Workload: `concurrency` closed-loop clients (batch_size x attention_dp_size when the row
// has no concurrency, noted), isl and osl fixed.
std::variant<MappedRun, Unmapped> map_serving_run(const traces::MeasuredServingRun& run);

// The group key alone (also for unmapped rows, so coverage can be reported per group).
std::string serving_run_group(const traces::MeasuredServingRun& run);

// A group key's parts, split at " | ": model, system (the hardware preset's name), backend and mode for every key
// serving_run_group makes; fewer for text not of that form.
std::vector<std::string> serving_group_parts(const std::string& group);

// Requests simulated for `clients` closed-loop clients: five waves (at least 64 requests), of which the middle 80%
// of arrivals are measured (from 7 clients up that includes the end of the first, synchronised wave),
// bounded so that a 3,000-client row still runs in seconds.
long requests_for_clients(int clients);

}  // namespace fleetcast::validation
