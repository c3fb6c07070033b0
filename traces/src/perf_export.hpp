#pragma once
// NVIDIA's benchmark clients' JSON exports, AIPerf's profile_export_aiperf.json (ai-dynamo/aiperf) and genai-perf's
// profile_export_genai_perf.json (triton-inference-server/perf_analyzer), as the flat record `vllm bench serve`
// writes, so that one reader maps all of them (bench_results.cpp). Both writers put one block per metric at the top
// level ({"unit": "ms", "avg": ..., "p50": ..., "p99": ...}; AIPerf's first releases under "records", TTFT tagged
// "ttft") and the run's configuration under "input_config", whose shape changed between releases.
// Definitions, from the writers: time_to_first_token is the first content response less the request's start,
// request_latency the last; inter_token_latency is per request (request_latency - TTFT) / (output tokens - 1),
// vLLM's TPOT; the profiling phase alone is in the metrics, the warm-up requests are not.

#include <nlohmann/json.hpp>
#include <string>
#include <variant>

namespace fleetcast::traces::detail {

struct PerfExportProblem {
  std::string field, value, reason;
};

// Whether a record is one of the two exports: a time_to_first_token block at the top or under "records".
bool is_perf_export(const nlohmann::json& r);

// The record with vLLM's keys: completed, total_input_tokens, total_output_tokens, mean_/median_/pNN_ ttft_ms,
// tpot_ms and e2el_ms, max_concurrency or request_rate, num_prompts (warm-up included), warmup_requests,
// model_id, failed, and "benchmark_tool" ("aiperf" or "genai-perf"); or what is missing or wrong.
std::variant<nlohmann::json, PerfExportProblem> perf_export_as_bench_record(const nlohmann::json& r);

}  // namespace fleetcast::traces::detail
