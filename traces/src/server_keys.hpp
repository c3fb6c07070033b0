#pragma once
// The engines' launch-setting keys (server_config.hpp): whose each is and what it sets. The keys are the engines' own,
// each read as its writer defines it:
//   TensorRT-LLM (tensorrt_llm/llmapi/llm_args.py, TorchLlmArgs; trtllm-serve's flags in commands/serve.py):
//     tensor_parallel_size / --tp_size, pipeline_parallel_size / --pp_size, moe_expert_parallel_size / --ep_size,
//     enable_attention_dp, max_batch_size, max_num_tokens, enable_chunked_prefill (default false),
//     kv_cache_config.{free_gpu_memory_fraction, dtype, tokens_per_block} (--kv_cache_free_gpu_memory_fraction),
//     batch_wait_timeout_iters, batch_wait_max_tokens_ratio, attention_dp_config.{enable_balance, timeout_iters,
//     batching_wait_iters}, speculative_config.{decoding_type, num_nextn_predict_layers (default 1), max_draft_len,
//     speculative_model_dir}.
//   vLLM (vllm/engine/arg_utils.py, EngineArgs; --config YAML keys are the flags' names): tensor_parallel_size (-tp),
//     pipeline_parallel_size (-pp), data_parallel_size (-dp), enable_expert_parallel, max_num_seqs,
//     max_num_batched_tokens, long_prefill_token_threshold, enable_chunked_prefill, gpu_memory_utilization,
//     block_size, kv_cache_dtype, speculative_config.{method, num_speculative_tokens, model} (--speculative-config
//     takes JSON; parse_server_command flattens it).
//   SGLang (sglang/srt/server_args.py, ServerArgs): tp_size (--tp), dp_size (--dp), ep_size (--ep),
//     enable_dp_attention, max_running_requests, max_prefill_tokens, chunked_prefill_size (-1: no chunking),
//     mem_fraction_static, page_size, kv_cache_dtype, cuda_graph_max_bs, cuda_graph_bs, enable_mixed_chunk,
//     scheduler_recv_interval, enable_prefill_delayer, speculative_algorithm, speculative_num_steps,
//     speculative_eagle_topk, speculative_num_draft_tokens, speculative_draft_model_path.

#include <string>
#include <vector>

#include "fleetcast/traces/server_config.hpp"

namespace fleetcast::traces::detail {

enum EngineBit : unsigned { kTrt = 1, kVllm = 2, kSglang = 4 };

// What a key sets. `ignored` keys are the engines' own but change nothing the models see; they still say whose
// settings a file holds.
enum class Meaning {
  tp,
  pp,
  dp,
  ep,
  expert_parallel_all,
  attention_dp_on,
  old_ep_moe,
  max_seqs,
  max_running,
  step_tokens,
  chunk_tokens,
  long_prefill_threshold,
  chunked_prefill,
  memory_fraction_trt,
  memory_fraction,
  kv_dtype,
  kv_block,
  batch_wait_iters,
  batch_wait_ratio,
  adp_balance,
  adp_timeout,
  adp_batching_wait,
  cuda_graph_max_bs,
  cuda_graph_bs,
  mixed_chunk,
  recv_interval,
  prefill_delayer,
  quantization,
  spec_method,
  spec_drafts,
  spec_topk,
  spec_verify_tokens,
  spec_draft_model,
  model,
  ignored
};

struct KeyRule {
  const char* key;
  unsigned engines;
  Meaning meaning;
};

// The rule of a key (nested TensorRT-LLM blocks by their prefix), nullptr for a key no engine here reads.
const KeyRule* rule_of(const std::string& key);
unsigned engine_bit(const std::string& engine);
std::string engine_names(unsigned bits);  // "trtllm or sglang"
// Lower case, '-' read as '_'.
std::string normal_key(std::string key);
// The one engine every engine-specific key allows, else "" (none say, or they disagree: server_engine reports it).
std::string engine_from_keys(const std::vector<ServerSetting>& entries);
// The model a `model` or `model_path` key names (the last one), "" when none does.
std::string model_key(const std::vector<ServerSetting>& entries);
// The last value of each key, in first-written order.
std::vector<ServerSetting> last_values(const std::vector<ServerSetting>& entries);

}  // namespace fleetcast::traces::detail
