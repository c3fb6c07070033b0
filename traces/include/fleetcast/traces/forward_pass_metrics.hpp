#pragma once
// Engine iterations a serving engine measured: the forward-pass metrics (FPM) NVIDIA Dynamo's workers publish once
// per scheduler iteration, as CSV. Two header layouts are read, by column name, in any column order:
// - the phase layout: ctx_tokens, ctx_requests, ctx_kv_tokens, decode_tokens, decode_requests, decode_kv_tokens,
//   latency_ms;
// - the detail layout: sum_prefill_tokens, num_prefill_requests, sum_prefill_kv_tokens, num_decode_requests,
//   sum_decode_kv_tokens, latency_ms (one token per decoding request).
// Both as aiconfigurator's FPM collector writes them (collector/layerwise/fpm_ground_truth: fpm_metrics_phase.csv,
// fpm_metrics_detail.csv); the optional phase, workload_segment and dp_rank columns are kept. The `*_kv_tokens`
// columns are the tokens already in the KV cache when the step ran: for the prefill requests those before this
// step's chunk, for the decoding requests their whole context. A file without them (num_context_tokens,
// num_decode_tokens, latency_ms only) cannot be costed and is refused.

#include <filesystem>
#include <string>
#include <vector>

namespace fleetcast::traces {

struct MeasuredStep {
  int line = 0;         // 1-based line in the file
  std::string phase;    // "context", "decode", "mixed" as the file says; else from the counts
  std::string segment;  // workload_segment ("sweep", "real_workload"), "" where the file has none
  int dp_rank = 0;
  int prefill_tokens = 0;  // prompt tokens computed in the step
  int prefill_requests = 0;
  long long prefill_kv_tokens = 0;  // summed over the prefill requests: tokens cached before this chunk
  int decode_tokens = 0;            // query tokens of the decoding requests (more than one each with drafts)
  int decode_requests = 0;
  long long decode_kv_tokens = 0;  // summed over the decoding requests: their context before this step
  double latency_s = 0.0;          // the iteration's wall time
};

struct ForwardPassMetrics {
  std::vector<MeasuredStep> steps;
  int empty_steps = 0;  // rows with neither prefill nor decode work (idle iterations), skipped and counted
};

// Strict: a missing column, a field that is not a number, a negative count, tokens without requests (or the
// reverse), or a latency that is not positive is an InputError naming "<file>:<line>", the column and the value.
ForwardPassMetrics parse_forward_pass_metrics(const std::string& text, const std::string& file);
ForwardPassMetrics read_forward_pass_metrics(const std::filesystem::path& path);

}  // namespace fleetcast::traces
