// Engine launch settings: whose they are, the layout they give and what they set on a measured run
// (server_config.hpp; the keys each engine reads are in server_keys.hpp).
#include "fleetcast/traces/server_config.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/number_text.hpp"
#include "lower.hpp"
#include "server_keys.hpp"

namespace fleetcast::traces {
namespace {

using namespace detail;

// The weights' format a --quantization method names ("fp8", "modelopt_fp4", "mxfp4", "awq"), as a measured run's
// precision; "" for a method that names none the models know.
std::string quantized_precision(const std::string& method) {
  const std::string m = lower(method);
  if (m == "fp8" || m == "ptpc_fp8" || m == "fbgemm_fp8" || m == "w8a8_fp8" || m == "modelopt") return "fp8";
  if (m == "modelopt_fp4" || m == "nvfp4") return "nvfp4";
  if (m == "mxfp4") return "mxfp4";
  if (m == "awq" || m == "awq_marlin" || m == "gptq" || m == "gptq_marlin" || m == "w4afp8") return "int4";
  return "";
}

// A launch's speculative decoding settings, in each engine's terms.
struct SpeculativeSettings {
  std::string method;       // TensorRT-LLM's decoding_type, vLLM's method, SGLang's speculative_algorithm
  std::string draft_model;  // a separate draft model's path or id
  int drafts = 0;           // num_nextn_predict_layers / max_draft_len, num_speculative_tokens, speculative_num_steps
  int topk = 0;             // SGLang's speculative_eagle_topk: above 1 the drafts are trees
  int verify_tokens = 0;    // SGLang's speculative_num_draft_tokens: the tokens verified per step, steps + 1 as a chain
  // TensorRT-LLM's block needs its decoding_type and SGLang drafts only with a speculative_algorithm; vLLM drafts
  // with the target's MTP layers given no more than num_speculative_tokens.
  bool said(const std::string& engine) const {
    if (engine == "vllm") return !method.empty() || !draft_model.empty() || drafts > 0;
    return !method.empty();
  }

  // Drafts proposed per step; 0 where the launch leaves them to the engine's own choice.
  int draft_tokens(const std::string& engine) const {
    if (drafts > 0) return drafts;
    if (engine == "sglang" && topk <= 1 && verify_tokens > 1) return verify_tokens - 1;
    // TensorRT-LLM's MTPDecodingConfig: num_nextn_predict_layers defaults to 1.
    if (engine == "trtllm" && lower(method) == "mtp") return 1;
    return 0;
  }
};

// "mtp" where the drafts come from the served model's own MTP layers, else a name for the method that says what it is
// (not modelled). vLLM drafts with the target's MTP layers given an MTP method or no draft model at all; SGLang's NEXTN
// is EAGLE over the checkpoint's own next-n layers, as EAGLE is without a draft model of its own.
std::string speculative_method(const std::string& engine, const SpeculativeSettings& spec, const std::string& model) {
  const std::string m = lower(spec.method);
  if (engine == "trtllm") return m == "mtp" ? "mtp" : spec.method.empty() ? "" : spec.method;
  if (engine == "vllm") {
    if (m.ends_with("mtp") || (m.empty() && spec.draft_model.empty())) return "mtp";
    return m.empty() ? "draft model " + spec.draft_model : spec.method;
  }
  if (engine == "sglang") {
    if (spec.topk > 1) return spec.method + " with top-" + std::to_string(spec.topk) + " draft trees";
    const bool own_layers = spec.draft_model.empty() || spec.draft_model == model;
    if (m == "nextn" || m == "mtp" || (m == "eagle" && own_layers)) return "mtp";
    return m == "eagle" ? "EAGLE with the draft model " + spec.draft_model : spec.method;
  }
  return spec.method;
}

class Reader {
 public:
  explicit Reader(const ServerSettings& s) : s_(s) {}

  int whole(const ServerSetting& e, int least) const {
    const auto v = whole_text_number(e.value);
    if (v && *v == std::floor(*v) && *v >= least && *v <= 1e9) return static_cast<int>(*v);
    throw InputError(s_.source, e.key, e.value, "a whole number >= " + std::to_string(least));
  }

  double fraction(const ServerSetting& e) const {
    const auto v = whole_text_number(e.value);
    if (v && *v > 0.0 && *v <= 1.0) return *v;
    throw InputError(s_.source, e.key, e.value, "a fraction in (0, 1]");
  }

  double ratio(const ServerSetting& e) const {
    const auto v = whole_text_number(e.value);
    if (v && *v >= 0.0 && *v <= 1.0) return *v;
    throw InputError(s_.source, e.key, e.value, "a ratio in [0, 1]");
  }

  bool flag(const ServerSetting& e) const {
    const std::string l = lower(e.value);
    if (l == "true" || l == "1" || l == "yes" || l == "on") return true;
    if (l == "false" || l == "0" || l == "no" || l == "off") return false;
    throw InputError(s_.source, e.key, e.value, "true or false");
  }

  // "auto" and the model's own format: nothing to set.
  std::string kv_format(const ServerSetting& e) const {
    const std::string l = lower(e.value);
    if (l == "auto" || l.empty()) return "";
    if (l.starts_with("fp8")) return "fp8";
    if (l == "bf16" || l == "bfloat16") return "bf16";
    if (l == "fp16" || l == "float16" || l == "half") return "fp16";
    if (l == "nvfp4" || l == "fp4") return "nvfp4";
    throw InputError(s_.source, e.key, e.value, "a KV format: auto, fp8, bf16, fp16 or nvfp4");
  }

 private:
  const ServerSettings& s_;
};

}  // namespace

ServerSettings merge_server_settings(const ServerSettings& command, const ServerSettings& file) {
  if (command.empty()) return file;
  if (file.empty()) return command;
  if (!command.engine.empty() && !file.engine.empty() && command.engine != file.engine) {
    throw InputError(
        file.source, "", file.engine,
        "these settings are " + file.engine + "'s, the command (" + command.source + ") starts " + command.engine);
  }
  ServerSettings out;
  out.source = command.source + " and " + file.source;
  out.engine = command.engine.empty() ? file.engine : command.engine;
  // TensorRT-LLM reads --extra_llm_api_options over its flags; vLLM and SGLang read a flag over --config.
  const bool file_wins = out.engine == "trtllm";
  const ServerSettings& first = file_wins ? command : file;
  const ServerSettings& last = file_wins ? file : command;
  out.entries = first.entries;
  out.entries.insert(out.entries.end(), last.entries.begin(), last.entries.end());
  out.model = !last.model.empty() ? last.model : first.model;
  if (out.engine.empty()) out.engine = engine_from_keys(out.entries);
  return out;
}

std::string server_engine(const ServerSettings& s, const std::string& runtime) {
  std::string named = s.engine;
  if (named.empty()) {
    // Keys of several engines that no one engine reads: say which.
    unsigned allowed = kTrt | kVllm | kSglang;
    for (const ServerSetting& e : s.entries) {
      const KeyRule* r = rule_of(e.key);
      if (r == nullptr) continue;
      if ((allowed & r->engines) == 0) {
        throw InputError(s.source, e.key, e.value,
                         "a setting of " + engine_names(r->engines) + ", where the settings before it are " +
                             engine_names(allowed) + "'s");
      }
      allowed &= r->engines;
    }
  }
  if (runtime.empty()) return named;
  if (engine_bit(runtime) == 0 && !s.entries.empty()) {
    throw InputError(s.source, "", runtime, "server settings are read for trtllm, vllm and sglang only");
  }
  if (!named.empty() && named != runtime) {
    throw InputError(s.source, "", named, "these settings are " + named + "'s; the runtime given is " + runtime);
  }
  return runtime;
}

ServerLayout server_layout(const ServerSettings& s, const std::string& engine) {
  const Reader read(s);
  const unsigned bit = engine_bit(engine);
  int tp = 0, pp = 0, dp = 0, ep = 0, seqs = 0;
  std::optional<bool> attention_dp, expert_all, ep_moe;
  for (const ServerSetting& e : last_values(s.entries)) {
    const KeyRule* r = rule_of(e.key);
    if (r == nullptr || (bit != 0 && (r->engines & bit) == 0)) continue;
    switch (r->meaning) {
      case Meaning::tp:
        tp = read.whole(e, 1);
        break;
      case Meaning::pp:
        pp = read.whole(e, 1);
        break;
      case Meaning::dp:
        dp = read.whole(e, 1);
        break;
      case Meaning::ep:
        ep = read.whole(e, 1);
        break;
      case Meaning::attention_dp_on:
        attention_dp = read.flag(e);
        break;
      case Meaning::expert_parallel_all:
        expert_all = read.flag(e);
        break;
      case Meaning::old_ep_moe:
        ep_moe = read.flag(e);
        break;
      case Meaning::max_seqs:
        seqs = read.whole(e, 1);
        break;
      default:
        break;
    }
  }
  ServerLayout out;
  out.pp = pp;
  out.max_num_seqs = seqs;
  if (engine == "trtllm") {
    out.moe_ep = ep;
    if (attention_dp.value_or(false)) {
      if (tp == 0) {
        throw InputError(s.source, "enable_attention_dp", "true",
                         "how many GPUs its DP ranks span is not in these settings: give the serve command with its "
                         "--tp_size (--server-args), or --tp 1 --dp N");
      }
      out.tp = 1;
      out.attention_dp = tp;
    } else {
      out.tp = tp;
    }
  } else if (engine == "sglang") {
    out.moe_ep = ep_moe.value_or(false) && ep == 0 ? tp : ep;
    if (attention_dp.value_or(false)) {
      const int ranks = std::max(dp, 1);
      if (tp == 0 || tp % ranks != 0) {
        throw InputError(s.source, "dp_size", std::to_string(ranks),
                         "with enable_dp_attention the DP ranks split tp_size (" + std::to_string(tp) +
                             ") GPUs: it must be given and divisible");
      }
      out.tp = tp / ranks;
      out.attention_dp = ranks;
    } else {
      if (dp > 1) {
        throw InputError(s.source, "dp_size", std::to_string(dp),
                         "without enable_dp_attention SGLang runs that many separate engines behind its router: "
                         "validate one engine's run (not modelled)");
      }
      out.tp = tp;
    }
  } else if (engine == "vllm") {
    out.tp = tp;
    out.attention_dp = dp;
    if (expert_all.value_or(false)) out.moe_ep = std::max(tp, 1) * std::max(dp, 1);
  }
  return out;
}

void apply_server_settings(const ServerSettings& s, MeasuredServingRun& run) {
  if (s.empty()) return;
  const std::string engine = server_engine(s, run.backend);
  const unsigned bit = engine_bit(engine);
  const Reader read(s);
  std::string taken, not_modelled;
  auto take = [&](const ServerSetting& e) { taken += (taken.empty() ? "" : ", ") + e.key + " " + e.value; };
  bool chunking_said = false;
  SpeculativeSettings spec;
  for (const ServerSetting& e : last_values(s.entries)) {
    const KeyRule* r = rule_of(e.key);
    if (r == nullptr || r->meaning == Meaning::ignored) {
      not_modelled += (not_modelled.empty() ? "" : ", ") + e.key;
      continue;
    }
    if ((r->engines & bit) == 0) {
      throw InputError(s.source, e.key, e.value,
                       "a setting of " + engine_names(r->engines) + ", not of " + engine + " (the run's runtime)");
    }
    switch (r->meaning) {
      case Meaning::max_running:
        run.server_max_running = read.whole(e, 1);
        break;
      case Meaning::step_tokens:
        run.server_max_num_tokens = read.whole(e, 1);
        break;
      case Meaning::chunk_tokens:
        // SGLang's -1 turns chunking off.
        if (e.value == "-1") {
          run.server_whole_prompts = true;
        } else {
          run.server_chunk_tokens = read.whole(e, 1);
        }
        chunking_said = true;
        break;
      case Meaning::long_prefill_threshold:
        if (const int v = read.whole(e, 0); v > 0) run.server_chunk_tokens = v;
        break;
      case Meaning::chunked_prefill:
        run.server_whole_prompts = !read.flag(e);
        chunking_said = true;
        break;
      case Meaning::memory_fraction_trt:
        run.server_free_gpu_memory_fraction = read.fraction(e);
        break;
      case Meaning::memory_fraction:
        run.server_gpu_memory_utilization = read.fraction(e);
        break;
      case Meaning::kv_dtype:
        run.server_kv_cache = read.kv_format(e);
        break;
      case Meaning::kv_block:
        run.server_kv_block_tokens = read.whole(e, 1);
        break;
      case Meaning::batch_wait_iters:
        run.server_batch_wait_iters = read.whole(e, 0);
        break;
      case Meaning::batch_wait_ratio:
        run.server_batch_wait_tokens_ratio = read.ratio(e);
        break;
      case Meaning::adp_balance:
        run.server_adp_balance = read.flag(e);
        break;
      case Meaning::adp_timeout:
        run.server_adp_timeout_iters = read.whole(e, 0);
        break;
      case Meaning::adp_batching_wait:
        run.server_adp_batching_wait_iters = read.whole(e, 0);
        break;
      case Meaning::cuda_graph_max_bs:
        run.server_cuda_graph_max_bs = read.whole(e, 1);
        break;
      case Meaning::cuda_graph_bs: {
        // A list of batch sizes: the largest is what the memory rule counts.
        int largest = 0;
        std::stringstream items(e.value);
        std::string item;
        while (std::getline(items, item, ',')) largest = std::max(largest, read.whole({e.key, item}, 1));
        run.server_cuda_graph_max_bs = largest;
        break;
      }
      case Meaning::mixed_chunk:
        run.server_mixed_chunk = read.flag(e);
        break;
      case Meaning::recv_interval:
        run.server_recv_interval = read.whole(e, 1);
        break;
      case Meaning::prefill_delayer:
        run.server_prefill_delayer = read.flag(e);
        break;
      case Meaning::quantization:
        // vLLM's and SGLang's online quantisation of the checkpoint's weights: the run's precision, unless given.
        if (const std::string p = quantized_precision(e.value); p.empty()) {
          not_modelled += (not_modelled.empty() ? "" : ", ") + e.key + " " + e.value;
          continue;
        } else if (run.precision.empty()) {
          run.precision = p;
        }
        break;
      case Meaning::spec_method:
        spec.method = e.value;
        break;
      case Meaning::spec_drafts:
        spec.drafts = read.whole(e, 1);
        break;
      case Meaning::spec_topk:
        spec.topk = read.whole(e, 1);
        break;
      case Meaning::spec_verify_tokens:
        spec.verify_tokens = read.whole(e, 1);
        break;
      case Meaning::spec_draft_model:
        spec.draft_model = e.value;
        break;
      default:
        break;  // the layout and the model: server_layout and the caller
    }
    take(e);
  }
  if (spec.said(engine)) {
    const std::string model = run.model_path.empty() ? s.model : run.model_path;
    run.spec_method = speculative_method(engine, spec, model);
    const int drafts = spec.draft_tokens(engine);
    if (drafts > 0 && run.spec_draft_tokens > 0 && run.spec_draft_tokens != drafts) {
      taken += ", the benchmark's counts say " + std::to_string(run.spec_draft_tokens) + " drafts per step";
    }
    if (drafts > 0) run.spec_draft_tokens = drafts;
  }
  // TensorRT-LLM's PyTorch backend runs each prompt whole unless enable_chunked_prefill says otherwise.
  if (engine == "trtllm" && !chunking_said) {
    run.server_whole_prompts = true;
    taken += std::string(taken.empty() ? "" : ", ") + "enable_chunked_prefill false (its default)";
  }
  std::string note = "server settings (" + s.source + "): " + (taken.empty() ? "none modelled" : taken);
  if (!not_modelled.empty()) note += "; not modelled: " + not_modelled;
  run.notes += (run.notes.empty() ? "" : "; ") + note;
}

}  // namespace fleetcast::traces
