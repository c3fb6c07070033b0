#pragma once
// What serving costs when the GPUs are rented: $/hour of a deployment and $/M tokens by class.
//
// Pure functions of their arguments, so every figure can be checked by hand. This first increment covers rented
// GPUs only; owning (purchase, depreciation, power and PUE) comes later and will add inputs, not change these.
// Every result says what it includes (TokenCost::included): tokens/s/GPU is not $/M tokens, and a figure that
// hides what it leaves out cannot be compared with anyone else's.

#include <nlohmann/json.hpp>
#include <string>

namespace fleetcast::cost_model {

// The price of one rented GPU. reserved_discount is ignored when !reserved, but must still lie in [0, 1).
struct RentalPrice {
  double usd_per_gpu_hour;
  bool reserved = false;
  double reserved_discount = 0.0;
};

// On demand: the list price; reserved: price * (1 - discount).
// Throws std::invalid_argument for a negative or non-finite price or a discount outside [0, 1).
double effective_usd_per_gpu_hour(const RentalPrice& price);

// What the simulator measured over its steady-state window. GPU-second fields count every GPU of the
// deployment: a step of 1 s on a 8-GPU replica is 8 GPU-s.
struct ServingWork {
  int gpus;                   // every GPU of the deployment
  double window_s;            // measurement window length
  double input_tokens;        // prefilled (uncached) input tokens completed in the window
  double output_tokens;       // output tokens generated in the window
  double prefill_busy_gpu_s;  // GPU-seconds of step time attributed to prefill tokens (step-time breakdown)
  double decode_busy_gpu_s;   // GPU-seconds attributed to decode tokens
  double idle_gpu_s;          // GPU-seconds with no step running
  // Input tokens read from the prefix cache instead of computed (what an API's cache-read price applies to), and
  // the GPU-seconds charged to them. token_cost() ignores both; fleet_cost() (fleet_cost.hpp) prices them.
  double cached_input_tokens = 0.0;
  double cache_read_busy_gpu_s = 0.0;
};

// Throws std::invalid_argument naming the field for work no cost can be computed from (the rules of token_cost).
void validate_work(const ServingWork& work);

// $ figures for the window. A $/M figure whose token count is 0 is +infinity (and null in JSON): money was spent
// and nothing of that class came out.
struct TokenCost {
  double usd_per_hour;              // whole deployment
  double usd_per_m_input;           // $ per million input tokens (prefill's share of the cost)
  double usd_per_m_output;          // $ per million output tokens (decode's share of the cost)
  double usd_per_m_tokens_blended;  // all deployment cost / all tokens (input + output) in millions
  double usd_per_m_output_all_in;   // all cost / output tokens: what people quote as "cost per M tokens"
  double idle_share;                // idle_gpu_s / (gpus * window_s)
  std::string included;             // one sentence: what the figures include and exclude
};

// Splits the window's cost C = usd_per_hour * window_s / 3600 between prefill and decode in proportion to their
// busy GPU-seconds; idle time is charged to both in that same proportion, since the capacity was paid for either
// way. Throws std::invalid_argument for gpus <= 0, window_s <= 0, a negative or non-finite amount, idle time over
// gpus * window_s, or tokens reported with no busy time to charge them to. With no busy time and no tokens
// (an idle window) every $/M figure is +infinity.
TokenCost token_cost(const RentalPrice& price, const ServingWork& work);

// Keys as the struct's fields; non-finite numbers are written as null (JSON has no infinity).
nlohmann::json to_json(const TokenCost& cost);

}  // namespace fleetcast::cost_model
