#pragma once
// What a closed-loop client's TPOT holds, split by rows that differ only in their output length. The TPOT of a
// request is the time from its first token to its last over its osl - 1 later tokens. In it are the decode steps of
// its batch (d per token) and, once per request, the extra time of every step that also prefilled another client's
// prompt while it decoded (X per request): TPOT = d + X / (osl - 1). Rows of one group, prompt length, layout and
// client count measured at two or more output lengths give d and X by least squares; the same split of the
// predicted TPOTs says what the simulation did.
//
// X / (C - 1) near one prompt's marginal prefill time in a decode step says the clients ran out of phase (each
// request's decode saw every other client's prefill once); X near 0 says they ran in lockstep (the prompts prefilled
// as a cohort, their time inside TTFT). d is the decode step at that batch with the prefills taken out. The split
// assumes d does not depend on osl; a longer output also lengthens the context a decode reads, so rows far apart in
// osl bias both splits alike: compare the measured split with the predicted one, not with zero.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleetcast/validation/validate_runs.hpp"

namespace fleetcast::validation {

struct TpotDecomposition {
  std::string group;   // model | system | backend | mode
  int isl = 0;         // prompt tokens
  std::string layout;  // "tp2 pp1 dp1 moe_tp0 ep0": the row's agg layout as the file gives it
  int concurrency = 0;
  std::vector<int> osls;                   // the distinct output lengths, ascending (two or more)
  int rows = 0;                            // predicted rows behind the split
  double measured_step_ms = 0.0;           // d
  double measured_interference_ms = 0.0;   // X
  double predicted_step_ms = 0.0;          // d of the predicted TPOTs
  double predicted_interference_ms = 0.0;  // X of the predicted TPOTs
  // The step model's (profile in use) marginal time of one isl-token prompt prefilled whole in a step beside
  // ceil((C - 1) / dp) decodes at context isl + shortest osl / 2: what X / (C - 1) comes to when the clients run out
  // of phase. NaN where the row does not map.
  double model_prefill_ms = 0.0;
};

// Every split the predicted rows allow: aggregated closed-loop rows with at least 2 clients, fixed lengths (no
// per-request lengths, no drawn spread) and output lengths of at least 2 tokens, keyed by group, isl, layout and
// clients, each key with two or more distinct output lengths (rows at the same osl are averaged first). In key order.
// The model's marginal prefill uses the first row of each key, mapped as validate maps it.
std::vector<TpotDecomposition> decompose_tpot(const ValidationResult& result);

// [{"group", "isl", "layout", "concurrency", "osls", "rows", "measured_step_ms", "measured_interference_ms",
//   "predicted_step_ms", "predicted_interference_ms", "model_prefill_ms" (null where NaN)}, ...]
nlohmann::json to_json(const std::vector<TpotDecomposition>& splits);

}  // namespace fleetcast::validation
