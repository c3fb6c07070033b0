#pragma once
// A benchmark record: every field the field expects of a serving benchmark (REFERENCE.md section 2), so a
// predicted result and a measured one can be laid side by side. Predicted records come from reports,
// measured ones (later) from vLLM, SGLang and silicon result readers.

#include <nlohmann/json.hpp>
#include <string>

namespace fleetcast::traces {

struct BenchmarkRecord {
  std::string source;      // "fleetcast-simulation" or the measuring tool
  std::string checkpoint;  // model name and revision
  std::string runtime;     // serving engine (and version or commit where known)
  std::string gpu;
  int gpu_count = 0;
  std::string interconnect;
  std::string precision;               // weights / experts / KV cache
  int tp = 1, pp = 1, ep = 1, dp = 1;  // dp: attention data-parallel ranks per replica
  std::string input_lengths;           // distribution, in words and parameters
  std::string output_lengths;
  std::string arrival;      // "poisson 10.5 req/s", "closed loop, 64 clients"
  int concurrency = 0;      // closed loop clients, 0 for open loop
  bool warm = true;         // warm-up excluded
  double duration_s = 0.0;  // measurement window
  double success_rate = 0.0;
  double total_tokens_per_s = 0.0;
  double output_tokens_per_s = 0.0;
  double output_tokens_per_s_per_gpu = 0.0;
  double tokens_per_s_per_user = 0.0;  // mean of 1 / TPOT over requests
  double ttft_mean_ms = 0.0, ttft_p50_ms = 0.0, ttft_p95_ms = 0.0;
  double tpot_mean_ms = 0.0;
  double e2e_p50_ms = 0.0, e2e_p95_ms = 0.0;
};

nlohmann::json to_json(const BenchmarkRecord& r);
// The exact inverse of to_json; throws InputError naming `file` and the field when a key is missing or wrong.
BenchmarkRecord benchmark_record_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace fleetcast::traces
