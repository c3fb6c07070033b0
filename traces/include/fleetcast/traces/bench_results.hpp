#pragma once
// Serving benchmark results as the benchmark clients write them: `vllm bench serve --save-result` (one JSON
// object; `--append-result` adds one per line), SGLang's `python -m sglang.bench_serving --output-file` (one JSON
// object per line), and NVIDIA's AIPerf and genai-perf exports (profile_export_aiperf.json,
// profile_export_genai_perf.json: metric blocks and the run's input_config; src/perf_export.hpp). Each record
// becomes a measured serving run (serving_results.hpp) the validator maps to a scenario; what the files do not say
// about the deployment (GPU, layout) comes from the caller or from the record's own metadata keys.

#include <filesystem>
#include <istream>
#include <string>

#include "fleetcast/traces/server_config.hpp"
#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::traces {

// The deployment a benchmark measured, as far as the file does not say it. A record may carry the same keys
// at its top level (vLLM's `--metadata hardware=h200 tp=8` writes them there), and a record's own key wins
// over these defaults: hardware (or system), model, runtime, precision, tp, pp, dp, ep, max_num_seqs, id. A record
// that keeps its own launch (server_args or server_cmd: the serve command; server_config or config_yaml: the options
// YAML) is mapped with it instead of `server`; one that cannot be read makes that record bad.
struct BenchDeployment {
  std::string hardware;   // "h200", "b200_sxm": a hardware preset, suffixes as in the silicon CSV
  std::string model;      // Hugging Face id or preset name; vLLM records carry model_id, SGLang ones nothing
  std::string runtime;    // "vllm", "sglang", "trtllm"; "": the server the client talked to (see below)
  std::string precision;  // "fp8", "nvfp4", "bf16"; "": the checkpoint name's or the preset's
  int tp = 0;             // 0: not given (the record is unmapped unless it says)
  int pp = 1;
  int dp = 1;
  int ep = 1;
  int max_num_seqs = 0;  // 0: the engine's default
  // Speculative decoding's mean accepted length per step (the verified token counted), for records that do not report
  // it (TensorRT-LLM's clients; the engines' logs print it); 0: not given.
  double accept_length = 0.0;
  // How the engine was started (server_config.hpp): every record's engine settings; the layout in them is the
  // caller's to merge into the fields above.
  ServerSettings server;
};

// Which layout fields of a BenchDeployment the caller set itself (command-line flags).
struct LayoutFieldsGiven {
  bool tp = false, pp = false, dp = false, ep = false, max_num_seqs = false;
};

// Puts an engine's launch settings in `given`: their engine as the runtime where none is given (InputError where
// they are another engine's), the model they serve where none is given, and their layout in the fields the caller
// left alone. A layout value that differs from one the caller set is an InputError naming both.
void take_server_settings(ServerSettings settings, BenchDeployment& given, const LayoutFieldsGiven& set_by_caller);

// Reads every record; a record without completed requests, token totals or positive mean TTFT and TPOT, or
// with a field of the wrong type, is bad: skipped and counted with its line, or under `strict` an InputError
// naming the line, the field and the value. Python's json writes an unbounded request rate as `Infinity`
// (SGLang) or the string "inf" (vLLM); both read as a closed-loop run.
MeasuredServingResults read_bench_results(const std::filesystem::path& path, const BenchDeployment& given,
                                          bool strict = false);
MeasuredServingResults parse_bench_results(std::istream& in, const std::string& file, const BenchDeployment& given,
                                           bool strict = false);

}  // namespace fleetcast::traces
