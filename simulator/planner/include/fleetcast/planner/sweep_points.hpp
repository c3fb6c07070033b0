#pragma once
// What one sweep point computes, for each kind of sweep. Each function runs inside the point's worker process
// and returns the fields of its results.jsonl line: "benchmark_record" (every field of traces::BenchmarkRecord,
// null where the kind of point has no such figure) plus the kind's own figures.
//
// - grid: the scenario with the point's fields set, simulated end to end (SimGrid: one per worker process);
//   adds the report's "cost" and input tokens/s per GPU.
// - decode / prefill: DeepInfer's steady-state points (steady_state.hpp), as `fleetcast step --json` gives
//   them: "steady_state" holds the same object. No queueing, no network, no request ends.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::planner {

// `scenario_json`: the scenario with every default filled in (specs::to_json), so that any field can be swept;
// `base_dir` resolves relative paths in it (a trace file), as for the scenario file itself.
nlohmann::json grid_point(const nlohmann::json& scenario_json, const nlohmann::json& parameters,
                          const std::string& file, const std::filesystem::path& base_dir);

// The scenario with MTP drafts set: next_n drafts at one conditional acceptance rate for every position, or no
// speculative decoding for next_n = 0. Throws InputError (from the spec rules) for invalid values.
specs::ScenarioSpec with_mtp(const specs::ScenarioSpec& s, int next_n, double acceptance, const std::string& file);

// Every attention-DP rank decodes `requests_per_rank` sequences at `context_tokens` (a disaggregated scenario:
// its decode pool).
nlohmann::json decode_point_line(const specs::ScenarioSpec& s, int requests_per_rank, int context_tokens);

// Every rank prefills its own `prompt_tokens` prompt in chunks of `tokens_per_rank` (disaggregated: the prefill
// pool).
nlohmann::json prefill_point_line(const specs::ScenarioSpec& s, int tokens_per_rank, int prompt_tokens);

}  // namespace fleetcast::planner
