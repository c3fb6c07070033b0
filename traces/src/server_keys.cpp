// The engines' launch-setting keys (server_keys.hpp).
#include "server_keys.hpp"

#include <algorithm>

#include "lower.hpp"

namespace fleetcast::traces::detail {

constexpr KeyRule kRules[] = {
    {"tensor_parallel_size", kTrt | kVllm, Meaning::tp},
    {"tp_size", kTrt | kSglang, Meaning::tp},
    {"tp", kVllm | kSglang, Meaning::tp},
    {"pipeline_parallel_size", kTrt | kVllm, Meaning::pp},
    {"pp_size", kTrt | kSglang, Meaning::pp},
    {"pp", kVllm | kSglang, Meaning::pp},
    {"data_parallel_size", kVllm, Meaning::dp},
    {"dp", kVllm | kSglang, Meaning::dp},
    {"dp_size", kSglang, Meaning::dp},
    {"moe_expert_parallel_size", kTrt, Meaning::ep},
    {"ep_size", kTrt | kSglang, Meaning::ep},
    {"ep", kSglang, Meaning::ep},
    {"enable_ep_moe", kSglang, Meaning::old_ep_moe},
    {"enable_expert_parallel", kVllm, Meaning::expert_parallel_all},
    {"enable_attention_dp", kTrt, Meaning::attention_dp_on},
    {"enable_dp_attention", kSglang, Meaning::attention_dp_on},
    {"max_batch_size", kTrt, Meaning::max_seqs},
    {"max_num_seqs", kVllm, Meaning::max_seqs},
    {"max_running_requests", kSglang, Meaning::max_running},
    {"max_num_tokens", kTrt, Meaning::step_tokens},
    {"max_num_batched_tokens", kVllm, Meaning::step_tokens},
    {"max_prefill_tokens", kSglang, Meaning::step_tokens},
    {"chunked_prefill_size", kSglang, Meaning::chunk_tokens},
    {"long_prefill_token_threshold", kVllm, Meaning::long_prefill_threshold},
    {"enable_chunked_prefill", kTrt | kVllm, Meaning::chunked_prefill},
    {"kv_cache_config.free_gpu_memory_fraction", kTrt, Meaning::memory_fraction_trt},
    {"kv_cache_free_gpu_memory_fraction", kTrt, Meaning::memory_fraction_trt},
    {"gpu_memory_utilization", kVllm, Meaning::memory_fraction},
    {"mem_fraction_static", kSglang, Meaning::memory_fraction},
    {"kv_cache_config.dtype", kTrt, Meaning::kv_dtype},
    {"kv_cache_dtype", kVllm | kSglang, Meaning::kv_dtype},
    {"kv_cache_config.tokens_per_block", kTrt, Meaning::kv_block},
    {"tokens_per_block", kTrt, Meaning::kv_block},
    {"block_size", kVllm, Meaning::kv_block},
    {"page_size", kSglang, Meaning::kv_block},
    {"batch_wait_timeout_iters", kTrt, Meaning::batch_wait_iters},
    {"batch_wait_max_tokens_ratio", kTrt, Meaning::batch_wait_ratio},
    {"attention_dp_config.enable_balance", kTrt, Meaning::adp_balance},
    {"attention_dp_config.timeout_iters", kTrt, Meaning::adp_timeout},
    {"attention_dp_config.batching_wait_iters", kTrt, Meaning::adp_batching_wait},
    {"cuda_graph_max_bs", kSglang, Meaning::cuda_graph_max_bs},
    {"cuda_graph_bs", kSglang, Meaning::cuda_graph_bs},
    {"enable_mixed_chunk", kSglang, Meaning::mixed_chunk},
    {"scheduler_recv_interval", kSglang, Meaning::recv_interval},
    {"enable_prefill_delayer", kSglang, Meaning::prefill_delayer},
    {"quantization", kVllm | kSglang, Meaning::quantization},
    {"speculative_config.decoding_type", kTrt, Meaning::spec_method},
    {"speculative_config.num_nextn_predict_layers", kTrt, Meaning::spec_drafts},
    {"speculative_config.max_draft_len", kTrt, Meaning::spec_drafts},
    {"speculative_config.speculative_model_dir", kTrt, Meaning::spec_draft_model},
    {"speculative_config.speculative_model", kTrt, Meaning::spec_draft_model},
    {"speculative_config.method", kVllm, Meaning::spec_method},
    {"speculative_config.num_speculative_tokens", kVllm, Meaning::spec_drafts},
    {"num_speculative_tokens", kVllm, Meaning::spec_drafts},
    {"speculative_config.model", kVllm, Meaning::spec_draft_model},
    {"speculative_model", kVllm, Meaning::spec_draft_model},
    {"speculative_algorithm", kSglang, Meaning::spec_method},
    {"speculative_num_steps", kSglang, Meaning::spec_drafts},
    {"speculative_eagle_topk", kSglang, Meaning::spec_topk},
    {"speculative_num_draft_tokens", kSglang, Meaning::spec_verify_tokens},
    {"speculative_draft_model_path", kSglang, Meaning::spec_draft_model},
    {"model_path", kSglang, Meaning::model},
    {"model", kTrt | kVllm | kSglang, Meaning::model},
    // The engines' own keys that change nothing modelled; they still name the engine.
    {"disable_overlap_scheduler", kTrt, Meaning::ignored},
    {"disable_overlap_schedule", kSglang, Meaning::ignored},
    {"print_iter_log", kTrt, Meaning::ignored},
    {"backend", kTrt, Meaning::ignored},
    {"extra_llm_api_options", kTrt, Meaning::ignored},
    {"mem_fraction", kSglang, Meaning::ignored},
    {"async_scheduling", kVllm, Meaning::ignored},
    {"enforce_eager", kVllm, Meaning::ignored},
};

const KeyRule* rule_of(const std::string& key) {
  for (const KeyRule& r : kRules) {
    if (key == r.key) return &r;
  }
  // Whole blocks of one engine's options: TensorRT-LLM's nested configs.
  for (const char* prefix : {"kv_cache_config.", "cuda_graph_config.", "moe_config.", "attention_dp_config.",
                             "torch_compile_config.", "scheduler_config."}) {
    if (key.starts_with(prefix)) {
      static constexpr KeyRule kTrtBlock{"", kTrt, Meaning::ignored};
      return &kTrtBlock;
    }
  }
  // TensorRT-LLM's speculative_config block and vLLM's --speculative-config JSON share a name.
  if (key.starts_with("speculative_config.")) {
    static constexpr KeyRule kSpeculativeBlock{"", kTrt | kVllm, Meaning::ignored};
    return &kSpeculativeBlock;
  }
  return nullptr;
}

unsigned engine_bit(const std::string& engine) {
  if (engine == "trtllm") return kTrt;
  if (engine == "vllm") return kVllm;
  if (engine == "sglang") return kSglang;
  return 0;
}

std::string engine_names(unsigned bits) {
  std::string out;
  for (const auto& [bit, name] : {std::pair{kTrt, "trtllm"}, std::pair{kVllm, "vllm"}, std::pair{kSglang, "sglang"}}) {
    if (bits & bit) out += (out.empty() ? "" : " or ") + std::string(name);
  }
  return out;
}

std::string normal_key(std::string key) {
  key = lower(std::move(key));
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

std::string engine_from_keys(const std::vector<ServerSetting>& entries) {
  unsigned allowed = kTrt | kVllm | kSglang;
  bool any = false;
  for (const ServerSetting& e : entries) {
    if (const KeyRule* r = rule_of(e.key)) {
      allowed &= r->engines;
      any = true;
    }
  }
  if (!any) return "";
  for (const auto& [bit, name] : {std::pair{kTrt, "trtllm"}, std::pair{kVllm, "vllm"}, std::pair{kSglang, "sglang"}}) {
    if (allowed == static_cast<unsigned>(bit)) return name;
  }
  return "";
}

std::string model_key(const std::vector<ServerSetting>& entries) {
  std::string model;
  for (const ServerSetting& e : entries) {
    if (e.key == "model" || e.key == "model_path") model = e.value;
  }
  return model;
}

std::vector<ServerSetting> last_values(const std::vector<ServerSetting>& entries) {
  std::vector<ServerSetting> out;
  for (const ServerSetting& e : entries) {
    auto it = std::find_if(out.begin(), out.end(), [&](const ServerSetting& o) { return o.key == e.key; });
    if (it == out.end()) {
      out.push_back(e);
    } else {
      it->value = e.value;
    }
  }
  return out;
}

}  // namespace fleetcast::traces::detail
