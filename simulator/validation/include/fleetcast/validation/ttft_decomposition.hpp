#pragma once
// What a closed-loop client's TTFT holds, split by rows that differ only in their prompt length. A request's TTFT
// is the wait for a step to take it, the steps that prefill its prompt, and whatever else lies between the client
// and the engine. The part that grows with the prompt is prompt prefill time: TTFT = a + k x p(isl), with p(isl) the
// step model's marginal time of one isl-token prompt beside the other clients' decodes (prompt_cost.hpp). Rows of one
// group, output length, layout and client count measured at two or more prompt lengths give a and k by least squares;
// the same split of the predicted TTFTs says what the simulation did.
//
// k is how many prompts' prefill each request waits for: near 1 when each prompt is prefilled on its own as it
// arrives (clients out of phase), near the cohort's size when the clients send together and their prompts share or
// queue for the same steps (lockstep). Set beside the TPOT split's X / (C - 1) (tpot_decomposition.hpp), it says
// whether the simulated clients group as the measured ones did. k also absorbs an error in p itself: a prompt that
// really costs 1.2 x p reads as k = 1.2, so compare the measured k with the predicted one, not with 1.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleetcast/validation/validate_runs.hpp"

namespace fleetcast::validation {

struct TtftDecomposition {
  std::string group;   // model | system | backend | mode
  int osl = 0;         // output tokens
  std::string layout;  // "tp2 pp1 dp1 moe_tp0 ep0": the row's agg layout as the file gives it
  int concurrency = 0;
  std::vector<int> isls;           // the distinct prompt lengths, ascending (two or more)
  std::vector<double> prompt_ms;   // p(isl) for each, ms
  int rows = 0;                    // predicted rows behind the split
  double measured_base_ms = 0.0;   // a
  double measured_prompts = 0.0;   // k
  double predicted_base_ms = 0.0;  // a of the predicted TTFTs
  double predicted_prompts = 0.0;  // k of the predicted TTFTs
};

// Every split the predicted rows allow: aggregated closed-loop rows (no per-request lengths), keyed by group, osl,
// layout and clients, each key with two or more distinct prompt lengths whose prompt cost the step model gives (rows
// at the same isl are averaged first). In key order. A client that drew each request's lengths uniformly in
// [floor(r x L), L] (InferenceX's, under `validate --drawn-lengths`) keys by the nominal lengths and has its prompt
// priced at the mean one. With the client simulated as it ran, the clients group alike in both, so k measured over
// k predicted there reads how much longer the engine took for the longer prompt than the step model says
// (docs/ACCURACY.md, "How much slower the engines prefill than the kernel-level figures say").
std::vector<TtftDecomposition> decompose_ttft(const ValidationResult& result);

// [{"group", "osl", "layout", "concurrency", "isls", "prompt_ms", "rows", "measured_base_ms", "measured_prompts",
//   "predicted_base_ms", "predicted_prompts"}, ...]
nlohmann::json to_json(const std::vector<TtftDecomposition>& splits);

}  // namespace fleetcast::validation
