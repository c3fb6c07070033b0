// Engine launch settings (server_config.hpp). The keys are the engines' own, each read as its writer defines it:
//   TensorRT-LLM (tensorrt_llm/llmapi/llm_args.py, TorchLlmArgs; trtllm-serve's flags in commands/serve.py):
//     tensor_parallel_size / --tp_size, pipeline_parallel_size / --pp_size, moe_expert_parallel_size / --ep_size,
//     enable_attention_dp, max_batch_size, max_num_tokens, enable_chunked_prefill (default false),
//     kv_cache_config.{free_gpu_memory_fraction, dtype, tokens_per_block} (--kv_cache_free_gpu_memory_fraction),
//     batch_wait_timeout_iters, batch_wait_max_tokens_ratio, attention_dp_config.{enable_balance, timeout_iters,
//     batching_wait_iters}.
//   vLLM (vllm/engine/arg_utils.py, EngineArgs; --config YAML keys are the flags' names): tensor_parallel_size (-tp),
//     pipeline_parallel_size (-pp), data_parallel_size (-dp), enable_expert_parallel, max_num_seqs,
//     max_num_batched_tokens, long_prefill_token_threshold, enable_chunked_prefill, gpu_memory_utilization,
//     block_size, kv_cache_dtype.
//   SGLang (sglang/srt/server_args.py, ServerArgs): tp_size (--tp), dp_size (--dp), ep_size (--ep),
//     enable_dp_attention, max_running_requests, max_prefill_tokens, chunked_prefill_size (-1: no chunking),
//     mem_fraction_static, page_size, kv_cache_dtype, cuda_graph_max_bs, cuda_graph_bs, enable_mixed_chunk,
//     scheduler_recv_interval, enable_prefill_delayer.
#include "fleetcast/traces/server_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "fleetcast/specs/error.hpp"
#include "lower.hpp"

namespace fleetcast::traces {
namespace {

using detail::lower;

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
  model,
  ignored
};

struct KeyRule {
  const char* key;
  unsigned engines;
  Meaning meaning;
};

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
                             "torch_compile_config.", "speculative_config.", "scheduler_config."}) {
    if (key.starts_with(prefix)) {
      static constexpr KeyRule kTrtBlock{"", kTrt, Meaning::ignored};
      return &kTrtBlock;
    }
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

// The one engine every engine-specific key allows, else "" (none say, or they disagree: server_engine reports it).
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

// The model a `model` or `model_path` key names (the last one), "" when none does.
std::string model_key(const std::vector<ServerSetting>& entries) {
  std::string model;
  for (const ServerSetting& e : entries) {
    if (e.key == "model" || e.key == "model_path") model = e.value;
  }
  return model;
}

// The last value of each key, in first-written order.
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

void flatten(const YAML::Node& node, const std::string& prefix, std::vector<ServerSetting>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string key = normal_key(kv.first.as<std::string>());
      flatten(kv.second, prefix.empty() ? key : prefix + "." + key, out);
    }
  } else if (node.IsSequence()) {
    std::string joined;
    for (const auto& item : node) {
      joined += (joined.empty() ? "" : ",") + (item.IsScalar() ? item.as<std::string>() : std::string("{...}"));
    }
    out.push_back({prefix, joined});
  } else if (node.IsScalar()) {
    out.push_back({prefix, node.as<std::string>()});
  }
  // null: not given
}

// Shell words: quotes, backslash escapes and `\` + newline joins, as a launch script writes them.
std::vector<std::string> shell_words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < command.size() &&
                 std::string("\"\\$`").find(command[i + 1]) != std::string::npos) {
        word += command[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      if (command[i + 1] != '\n') {
        word += command[i + 1];
        in_word = true;
      }
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) throw InputError("", "--server-args", command.substr(0, 60), "an unclosed quote");
  if (in_word) words.push_back(word);
  return words;
}

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

bool is_bool_text(const std::string& v) {
  const std::string l = lower(v);
  return l == "true" || l == "false";
}

// A flag that takes no value unless `true` or `false` follows: the engines' switches.
bool switch_flag(const std::string& key) {
  if (key.starts_with("enable_") || key.starts_with("disable_") || key.starts_with("no_")) return true;
  for (const char* k : {"trust_remote_code", "enforce_eager", "async_scheduling", "print_iter_log"}) {
    if (key == k) return true;
  }
  return false;
}

bool is_number(const std::string& w) {
  return !w.empty() && w.find_first_not_of("0123456789.-") == std::string::npos &&
         std::isdigit(static_cast<unsigned char>(w.back()));
}

bool looks_like_flag(const std::string& w) {
  return w.size() > 1 && w[0] == '-' && !(std::isdigit(static_cast<unsigned char>(w[1])) || w[1] == '.');
}

class Reader {
 public:
  explicit Reader(const ServerSettings& s) : s_(s) {}

  int whole(const ServerSetting& e, int least) const {
    try {
      std::size_t used = 0;
      const long v = std::stol(e.value, &used);
      if (used == e.value.size() && v >= least && v <= 1'000'000'000) return static_cast<int>(v);
    } catch (const std::exception&) {
    }
    throw InputError(s_.source, e.key, e.value, "a whole number >= " + std::to_string(least));
  }

  double fraction(const ServerSetting& e) const {
    try {
      std::size_t used = 0;
      const double v = std::stod(e.value, &used);
      if (used == e.value.size() && v > 0.0 && v <= 1.0) return v;
    } catch (const std::exception&) {
    }
    throw InputError(s_.source, e.key, e.value, "a fraction in (0, 1]");
  }

  double ratio(const ServerSetting& e) const {
    try {
      std::size_t used = 0;
      const double v = std::stod(e.value, &used);
      if (used == e.value.size() && v >= 0.0 && v <= 1.0) return v;
    } catch (const std::exception&) {
    }
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

ServerSettings parse_server_config(const std::string& yaml_text, const std::string& source) {
  ServerSettings s;
  s.source = source;
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw InputError(source, "line " + std::to_string(e.mark.line + 1), "", "not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return s;
  if (!root.IsMap()) throw InputError(source, "", "", "the settings are a YAML mapping of key: value");
  try {
    flatten(root, "", s.entries);
  } catch (const YAML::Exception& e) {
    throw InputError(source, "line " + std::to_string(e.mark.line + 1), "", "not a key: value setting: " + e.msg);
  }
  s.engine = engine_from_keys(s.entries);
  if (const std::string named = model_key(s.entries); !named.empty()) s.model = named;
  return s;
}

ServerSettings read_server_config(const std::filesystem::path& yaml) {
  std::ifstream in(yaml, std::ios::binary);
  if (!in) throw InputError(yaml.string(), "", "", "cannot open the server settings file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_server_config(text.str(), yaml.string());
}

ServerSettings parse_server_command(const std::string& command, const std::string& source) {
  ServerSettings s;
  s.source = source;
  std::vector<std::string> words;
  try {
    words = shell_words(command);
  } catch (const InputError& e) {
    throw InputError(source, "", e.value(), e.problem());
  }
  // The engine's program: trtllm-serve, `vllm serve`, `python -m sglang.launch_server`, `sglang serve`. Flags before
  // it belong to launchers (mpirun, env).
  std::size_t first = 0;
  bool positional_model = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string base = std::filesystem::path(words[i]).filename().string();
    const bool serve_next = i + 1 < words.size() && words[i + 1] == "serve";
    if (base == "trtllm-serve") {
      s.engine = "trtllm";
      first = i + (serve_next ? 2 : 1);  // `trtllm-serve serve MODEL` as well as `trtllm-serve MODEL`
      positional_model = true;
    } else if ((base == "vllm" || base == "sglang") && serve_next) {
      s.engine = base;
      first = i + 2;
      positional_model = true;
    } else if (base.find("sglang.launch_server") != std::string::npos) {
      s.engine = "sglang";
      first = i + 1;
    } else if (base.find("vllm.entrypoints.openai.api_server") != std::string::npos) {
      s.engine = "vllm";
      first = i + 1;
    } else {
      continue;
    }
    break;
  }
  if (s.engine.empty()) {
    // Only flags were given: they start at the first word that is one.
    first = words.size();
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (looks_like_flag(words[i])) {
        first = i;
        break;
      }
    }
  }
  for (std::size_t i = first; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (!looks_like_flag(w)) {
      if (positional_model && s.model.empty()) s.model = w;
      continue;
    }
    std::string key = w.substr(w.find_first_not_of('-'));
    std::string value;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
      key = normal_key(key);
    } else {
      key = normal_key(key);
      const bool next_is_value = i + 1 < words.size() && !looks_like_flag(words[i + 1]);
      if (switch_flag(key)) {
        value = next_is_value && is_bool_text(words[i + 1]) ? words[++i] : "true";
      } else if (next_is_value) {
        value = words[++i];
        // A list flag (SGLang's --cuda-graph-bs 1 2 4 8) takes the numbers after it; a word that is not one is a
        // positional argument.
        while (is_number(words[i]) && i + 1 < words.size() && is_number(words[i + 1])) value += "," + words[++i];
      } else {
        value = "true";
      }
    }
    // vLLM's negated switches: --no-enable-prefix-caching.
    if (key.starts_with("no_") && switch_flag(key.substr(3)) && value == "true") {
      key = key.substr(3);
      value = "false";
    }
    s.entries.push_back({key, value});
  }
  // A short alias vLLM and SGLang share (-tp) names no engine; only the program or a specific key does.
  if (s.engine.empty()) s.engine = engine_from_keys(s.entries);
  if (const std::string named = model_key(s.entries); !named.empty()) s.model = named;
  return s;
}

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
      default:
        break;  // the layout and the model: server_layout and the caller
    }
    take(e);
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
