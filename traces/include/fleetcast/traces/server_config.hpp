#pragma once
// How a serving engine was started, as its user wrote it down: TensorRT-LLM's `--extra_llm_api_options` YAML (its
// LlmArgs keys, nested), vLLM's and SGLang's `--config` YAML (their flags' names), or the serve command line itself
// (`trtllm-serve MODEL --tp_size 8 ...`, `vllm serve MODEL -tp 8 ...`, `python -m sglang.launch_server --tp 8 ...`).
// A measured run read from a benchmark client's file says nothing about the engine's settings; these say what the
// scheduler and memory models need (batch caps, step budgets, chunking, memory fractions, KV format, TensorRT-LLM's
// batch waiting and attention-DP balance) and the layout.

#include <filesystem>
#include <string>
#include <vector>

#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::traces {

struct ServerSetting {
  std::string key;    // lower case, '-' read as '_', nested mappings joined by '.': "kv_cache_config.dtype"
  std::string value;  // a scalar's text; a list's items joined by ','; "true" for a flag given without a value
};

struct ServerSettings {
  std::string source;  // the file, or "--server-args"
  std::string engine;  // "trtllm", "vllm", "sglang": what the command or the keys name; "" when they name none
  std::string model;   // the served model where the command or a key names it
  std::vector<ServerSetting> entries;  // in the order written; a later entry of the same key wins
  bool empty() const { return entries.empty() && engine.empty() && model.empty(); }
};

// A YAML file of settings (a mapping at the top). InputError naming the file, and the line where YAML says, when it
// cannot be read or parsed.
ServerSettings read_server_config(const std::filesystem::path& yaml);
ServerSettings parse_server_config(const std::string& yaml_text, const std::string& source);

// A serve command line: the program's words up to the first flag say the engine and, after `serve`, the model;
// `--key value`, `--key=value`, `-tp 8` and bare boolean flags follow. Shell quoting and `\` line joins are read.
ServerSettings parse_server_command(const std::string& command, const std::string& source = "--server-args");

// Both sources of one launch: TensorRT-LLM applies its options file over the command line; vLLM and SGLang let a
// command-line flag win over their --config file. The engine must agree (InputError otherwise).
ServerSettings merge_server_settings(const ServerSettings& command, const ServerSettings& file);

// The engine the settings are for: `runtime` where given (InputError when the settings name another), else theirs;
// "" when neither says.
std::string server_engine(const ServerSettings& s, const std::string& runtime);

// The layout the settings give for `engine`, as a measured run's columns hold it; 0 where they say nothing.
// Attention DP puts the tensor-parallel GPUs in DP ranks (TensorRT-LLM's enable_attention_dp, SGLang's
// enable_dp_attention with dp_size); vLLM's expert parallelism spans tp x dp. InputError on a bad value.
struct ServerLayout {
  int tp = 0;
  int pp = 0;
  int attention_dp = 0;
  int moe_ep = 0;
  int max_num_seqs = 0;  // TensorRT-LLM's max_batch_size, vLLM's max_num_seqs (SGLang's cap is server_max_running)
};
ServerLayout server_layout(const ServerSettings& s, const std::string& engine);

// Sets the run's server_* fields from the settings its engine (run.backend) reads and adds a note saying which were
// taken and which are not modelled. A setting of another engine, or a bad value, is an InputError naming the source,
// the key and the value. A launch that leaves TensorRT-LLM's enable_chunked_prefill out runs its default, whole
// prompts.
void apply_server_settings(const ServerSettings& s, MeasuredServingRun& run);

}  // namespace fleetcast::traces
