// Checkpoint names to model presets: the suffixes that do not change the architecture, and the checkpoints that
// share another's.
#include "fleetcast/validation/checkpoint_names.hpp"

#include <algorithm>
#include <cctype>

#include "fleetcast/specs/presets.hpp"
#include "text.hpp"

namespace fleetcast::validation {
namespace {

using detail::lower;
using detail::strip_suffix;

// Checkpoints published under another name than the preset whose architecture they have. Each entry's source
// gives the figures that match the preset's (layers, widths, heads, experts, vocabulary).
struct SameArchitecture {
  const char* checkpoint;
  const char* preset;
  const char* source;
};

constexpr SameArchitecture kSameArchitecture[] = {
    // meta-llama/Llama-3.3-70B-Instruct config.json (ai-dynamo/aiconfigurator
    // src/aiconfigurator/model_configs/meta-llama--Llama-3.3-70B-Instruct_config.json): 80 layers, hidden 8192,
    // FFN 28672, 64 heads / 8 KV, vocab 128256, max 131072, untied, as Llama-3.1-70B's.
    {"llama-3.3-70b", "llama-3.1-70b", "Llama-3.3-70B has Llama-3.1-70B's config.json figures"},
    // Kimi-K2 (zyzshishui/slime scripts/models/kimi-k2.sh): 61 layers, 1 dense, hidden 7168, MLA 64 heads, q_lora
    // 1536, kv_lora 512, 384 experts top-8 + 1 shared of 2048, vocab 163840: Kimi-K2.5's text model.
    {"kimi-k2", "kimi-k2.5", "Kimi-K2 is Kimi-K2.5's text model (same layers, MLA and experts)"},
    // GLM-4.5 (zyzshishui/slime scripts/models/glm4.5-355B-A32B.sh): 3 dense + 89 MoE layers, hidden 5120, 96 heads
    // / 8 KV x 128, FFN 12288, 160 experts top-8 of 1536 + 1 shared, vocab 151552: GLM-4.7's config.json figures.
    {"glm-4.5", "glm-4.7", "GLM-4.5 has GLM-4.7's layers, attention and experts"},
    // GLM-4.6 (Glm4MoeForCausalLM; its config.json as andreidhoang/stanford-ai
    // LLM/glm-4.6-training-pipeline/docs/GLM-4.6_DEEP_DIVE.md copies it: 92 layers, first 3 dense of 12288, hidden
    // 5120,
    // 96 heads / 8 KV x 128, 160 experts top-8 of 1536 + 1 shared, vocab 151552, max 202752, untied; 355B in
    // xorbitsai/inference doc/source/models/builtin/llm/glm-4.6.rst): GLM-4.7's figures, context included.
    {"glm-4.6", "glm-4.7", "GLM-4.6 has GLM-4.7's layers, attention, experts and 202,752-token context"},
    // MiniMax-M2.1 (huggingface.co/QuixiAI/MiniMax-M2.1-bf16 config.json, the minimax-m2.5 preset's own source) and
    // MiniMax-M2 (GPTQModel's MiniMaxM2Config defaults: 62 layers, hidden 3072, 256 experts of 1536, vocab 200064).
    {"minimax-m2.1", "minimax-m2.5", "MiniMax-M2.1's config.json is the minimax-m2.5 preset's source"},
    {"minimax-m2", "minimax-m2.5", "MiniMax-M2 has MiniMax-M2.5's layers, attention and experts"},
    // Qwen3-VL's language models (their text_config): Qwen3-VL-235B-A22B (ai-dynamo/aiconfigurator
    // src/aiconfigurator/model_configs/Qwen--Qwen3-VL-235B-A22B-Thinking_config.json: 94 layers, hidden 4096, 64 heads
    // / 4 KV x 128, 128 experts top-8 of 1536, vocab 151936) and Qwen3-VL-30B-A3B (THUDM/slime
    // scripts/models/qwen3-vl-30b-a3b.sh: 48 layers, hidden 2048, 32 heads / 4 KV x 128, 128 experts top-8 of 768).
    // The vision encoder is not modelled: text-only traffic does not run it.
    {"qwen3-vl-235b-a22b", "qwen3-235b-a22b", "Qwen3-VL-235B-A22B's language model is Qwen3-235B-A22B's"},
    {"qwen3-vl-30b-a3b", "qwen3-30b-a3b", "Qwen3-VL-30B-A3B's language model is Qwen3-30B-A3B's"},
    // The dense Qwen3-VL models' language models (Zhuohao-Li/slime scripts/models/qwen3-vl-{2B,4B,8B}-Instruct.sh;
    // 32B from public copies of its config.json): layers, hidden, FFN, 8 KV heads x 128 and tying as Qwen3-1.7B, 4B,
    // 8B and 32B; only the position settings differ (262,144 tokens and MRoPE, where the Qwen3 presets stop at 40,960).
    {"qwen3-vl-2b", "qwen3-1.7b", "Qwen3-VL-2B's language model has Qwen3-1.7B's shape (context up to 40,960 here)"},
    {"qwen3-vl-4b", "qwen3-4b", "Qwen3-VL-4B's language model has Qwen3-4B's shape (context up to 40,960 here)"},
    {"qwen3-vl-8b", "qwen3-8b", "Qwen3-VL-8B's language model has Qwen3-8B's shape (context up to 40,960 here)"},
    {"qwen3-vl-32b", "qwen3-32b", "Qwen3-VL-32B's language model has Qwen3-32B's shape (context up to 40,960 here)"},
    // DeepSeek-V3.1 is served as DeepseekV3ForCausalLM with V3's figures; aiconfigurator builds V3 and V3.1
    // (nvidia/DeepSeek-V3.1-NVFP4) from one model family (ai-dynamo/aiconfigurator src/aiconfigurator/sdk/common.py).
    {"deepseek-v3.1", "deepseek-v3", "DeepSeek-V3.1 has DeepSeek-V3's architecture"},
    {"deepseek-v3.1-terminus", "deepseek-v3", "DeepSeek-V3.1-Terminus has DeepSeek-V3's architecture"},
    // DeepSeek-R1's README, "DeepSeek-R1-Distill Models": Llama-70B is fine-tuned from Llama-3.3-70B-Instruct and
    // Llama-8B from Llama-3.1-8B ("we slightly change their configs and tokenizers": not their shapes).
    {"deepseek-r1-distill-llama-70b", "llama-3.1-70b",
     "DeepSeek-R1-Distill-Llama-70B is fine-tuned from Llama-3.3-70B-Instruct (Llama-3.1-70B's figures)"},
    {"deepseek-r1-distill-llama-8b", "llama-3.1-8b", "DeepSeek-R1-Distill-Llama-8B is fine-tuned from Llama-3.1-8B"},
    // The same README: Qwen-32B from Qwen2.5-32B, Qwen-7B from Qwen2.5-Math-7B, whose model card names Qwen2.5-7B as
    // its base (Qwen2.5-Math continues Qwen2.5's pre-training; the architecture is Qwen2.5-7B's). Their configs allow
    // 131,072 tokens; the Qwen2.5 presets stop at the native 32,768.
    {"deepseek-r1-distill-qwen-32b", "qwen2.5-32b",
     "DeepSeek-R1-Distill-Qwen-32B is fine-tuned from Qwen2.5-32B (context up to 32,768 here)"},
    {"deepseek-r1-distill-qwen-7b", "qwen2.5-7b",
     "DeepSeek-R1-Distill-Qwen-7B is fine-tuned from Qwen2.5-Math-7B, itself from Qwen2.5-7B (context up to 32,768 "
     "here)"},
    // QwQ-32B-Preview's Qwen2Config (Qwen2ForCausalLM: 64 layers, hidden 5120, FFN 27648, 40 heads / 8 KV, vocab
    // 152064, untied; printed in Retruth/deontic nlp_models/qwq/README.md) is Qwen2.5-32B's; QwQ-32B's model card gives
    // the same 64 layers and 40 / 8 heads at 32.5B. "-preview" is stripped, so both names land here.
    {"qwq-32b", "qwen2.5-32b", "QwQ-32B has Qwen2.5-32B's layers, widths, heads and vocabulary"},
    // The deepseek-v3.2 preset's own indexer figures come from V3.2-Exp's reference code
    // (deepseek-ai/DeepSeek-V3.2-Exp inference/model.py); both are DeepseekV32ForCausalLM.
    {"deepseek-v3.2-exp", "deepseek-v3.2",
     "DeepSeek-V3.2-Exp is DeepSeek-V3.2's architecture (DeepseekV32ForCausalLM)"},
    // vLLM 0.20.1 resolves Qwen/Qwen3.6-35B-A3B to Qwen3_5MoeForConditionalGeneration with a 248,320-token vocabulary
    // (ai-dynamo/aiconfigurator fpm_golden_runs/fpm_upfront_qwen36_moe_full_once_20260613_201336/collect.log): the
    // class and vocabulary of Qwen3.5-35B-A3B, at the same 35B-A3B size.
    {"qwen3.6-35b-a3b", "qwen3.5-35b-a3b", "Qwen3.6-35B-A3B is Qwen3.5-35B-A3B's architecture (Qwen3_5Moe)"},
    // moonshotai/Kimi-K2.6's model card: "Kimi-K2.6 has the same architecture as Kimi-K2.5, and the deployment method
    // can be directly reused" (SGLang's MI35x nightly tests for it reuse K2.5's server arguments on that ground);
    // Kimi-K2.7-Code's card: "the same architecture as Kimi-K2.5/Kimi-K2.6", its config.json K2.6's field by field.
    {"kimi-k2.6", "kimi-k2.5", "Kimi-K2.6 is Kimi-K2.5's architecture (its model card)"},
    {"kimi-k2.7-code", "kimi-k2.5", "Kimi-K2.7-Code is Kimi-K2.5's architecture (its model card)"},
    // unsloth.ai/docs/models/glm-5.1: "GLM-5.1 uses the same architecture as GLM-5 with a different
    // chat_template.jinja", 744B (40B active), 202,752 tokens. It ships no MTP layer (SGLang's GlmMoeDsa MTP
    // override says so), which only a speculative scenario would notice.
    {"glm-5.1", "glm-5", "GLM-5.1 is GLM-5's architecture with another chat template"},
    // GLM-5.2 and GLM-5.3 (glm_moe_dsa; GLM-5.3's config.json differs from GLM-5.2-FP8's in transformers_version
    // alone): 78 layers plus a NextN block, hidden 6144, MLA with 576-wide latent rows and the DSA indexer, 256
    // routed experts top-8 plus 1 shared, as GLM-5 (a GGUF loader's notes on both checkpoints). They advertise 1M
    // tokens at RoPE base 8e6 where the preset stops at GLM-5's 202,752; heads, q_lora and expert widths are not in
    // those notes and are taken as GLM-5's. GLM-5.3-Flash is another architecture (KDA layers) and stays unmapped.
    {"glm-5.2", "glm-5", "GLM-5.2 has GLM-5's layers, hidden size, MLA latent and experts (context up to 202,752)"},
    {"glm-5.3", "glm-5",
     "GLM-5.3 has GLM-5.2's config, GLM-5's layers, MLA latent and experts (context up to 202,752)"},
};

// Suffixes that name a checkpoint's precision, tuning or packaging, not its architecture; stripped repeatedly, in
// any order ("qwen3-235b-a22b-instruct-2507-fp8" loses "-fp8", then "-2507", then "-instruct"). NVIDIA's second
// FP4 quantisation of DeepSeek-R1-0528 is "-FP4-v2" (nvidia/DeepSeek-R1-0528-FP4-v2), written "-NVFP4-v2" too.
// AMD's Quark checkpoints add "-fp8-kv" (FP8 weights and KV cache: amd/Llama-3.3-70B-Instruct-FP8-KV) and
// "-ptpc" (per-token, per-channel FP8 scales: "-ptpc-fp8" loses "-fp8", then "-ptpc"). MiniMax publishes MiniMax-M3 as
// "-MXFP8" (8-bit values with a shared scale per 32).
// Meta's Llama 2 checkpoints in the transformers format end in "-hf" (meta-llama/Llama-2-7b-chat-hf). Google names
// Gemma's instruction-tuned and pre-trained checkpoints "-it" and "-pt" (google/gemma-3-27b-it); NVIDIA its Nemotron-H
// base models by their training context (nvidia/Nemotron-H-56B-Base-8K).
constexpr const char* kSuffixes[] = {
    "-instruct", "-thinking", "-base",  "-chat",  "-preview", "-fp8-dynamic", "-fp4-v2",
    "-nvfp4-v2", "-nvfp4",    "-mxfp4", "-mxfp8", "-fp4",     "-fp8",         "-bf16",
    "-fp8-kv",   "-ptpc",     "-hf",    "-it",    "-pt",      "-8k",          "-static-pertensor"};

// The weights' format a precision suffix names: NVIDIA's "-FP4" checkpoints (nvidia/DeepSeek-R1-0528-FP4-v2,
// nvidia/Llama-3.1-405B-Instruct-FP4) are NVFP4 (ModelOpt's quant_algo NVFP4); AMD's "-MXFP4" OCP MXFP4; an MXFP8
// checkpoint's 8-bit values are FP8 with a shared scale per 32.
std::string suffix_quant_mode(const std::string& suffix) {
  if (suffix == "-fp8" || suffix == "-fp8-dynamic" || suffix == "-fp8-kv" || suffix == "-mxfp8") return "fp8";
  if (suffix == "-fp4" || suffix == "-fp4-v2" || suffix == "-nvfp4" || suffix == "-nvfp4-v2") return "nvfp4";
  if (suffix == "-mxfp4") return "mxfp4";
  if (suffix == "-bf16") return "bf16";
  return "";
}

// "-w-mxfp4-a-fp8": the weight and activation formats of a quantisation recipe (amd/gpt-oss-120b-w-mxfp4-a-fp8),
// "-w-" and "-a-" each followed by one format name.
bool strip_weight_activation_formats(std::string& s) {
  const std::size_t w = s.rfind("-w-");
  if (w == std::string::npos) return false;
  const std::size_t a = s.find("-a-", w + 3);
  const auto is_format = [&](std::size_t from, std::size_t to) {
    return to > from &&
           std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(to),
                       [](unsigned char c) { return std::isalnum(c); });
  };
  if (a == std::string::npos || !is_format(w + 3, a) || !is_format(a + 3, s.size())) return false;
  s.resize(w);
  return true;
}

// "-0528", "-2507": a release date (month and day, or year and month), never part of an architecture's name.
bool strip_date(std::string& s) {
  constexpr std::size_t kLength = 5;
  if (s.size() <= kLength || s[s.size() - kLength] != '-') return false;
  if (!std::all_of(s.end() - 4, s.end(), [](unsigned char c) { return std::isdigit(c); })) return false;
  s.resize(s.size() - kLength);
  return true;
}

// "-v0.1", "-v0.3": Mistral's release versions (mistralai/Mixtral-8x7B-Instruct-v0.1), which keep the architecture.
// Only major version 0: "-v3.1" and "-v2" are parts of architecture names (deepseek-v3.1, mimo-v2-flash).
bool strip_release_version(std::string& s) {
  const std::size_t v = s.rfind("-v0.");
  if (v == std::string::npos || v + 4 == s.size()) return false;
  if (!std::all_of(s.begin() + static_cast<std::ptrdiff_t>(v + 4), s.end(),
                   [](unsigned char c) { return std::isdigit(c); }))
    return false;
  s.resize(v);
  return true;
}

// The checkpoint's own name in a path: its last component, or, inside a Hugging Face hub cache
// (.../models--deepseek-ai--DeepSeek-R1-0528/snapshots/<commit>), the repository folder's name after its last "--".
std::string checkpoint_name(const std::string& model_path) {
  std::string rest = model_path;
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  for (std::size_t end = rest.size(); end > 0;) {
    const std::size_t slash = rest.find_last_of('/', end - 1);
    const std::size_t begin = slash == std::string::npos ? 0 : slash + 1;
    const std::string part = rest.substr(begin, end - begin);
    if (part.starts_with("models--")) return part.substr(part.rfind("--") + 2);
    if (slash == std::string::npos) break;
    end = slash;
  }
  return rest.substr(rest.find_last_of('/') + 1);
}

}  // namespace

CheckpointModel model_for_checkpoint(const std::string& model_path) {
  std::string name = lower(checkpoint_name(model_path));
  if (name.starts_with("meta-llama-")) name.erase(0, 5);
  if (name.starts_with("nvidia-nemotron-")) name.erase(0, 7);  // nvidia/NVIDIA-Nemotron-Nano-9B-v2
  // NVIDIA writes version dots as underscores (nvidia/Llama-3_3-Nemotron-Super-49B-v1): "3_3" is "3.3".
  for (std::size_t i = 1; i + 1 < name.size(); ++i) {
    if (name[i] == '_' && std::isdigit(static_cast<unsigned char>(name[i - 1])) &&
        std::isdigit(static_cast<unsigned char>(name[i + 1])))
      name[i] = '.';
  }
  std::string quant_mode;
  for (bool stripped = true; stripped;) {
    stripped = strip_date(name);
    stripped = strip_release_version(name) || stripped;
    stripped = strip_weight_activation_formats(name) || stripped;
    for (const char* suffix : kSuffixes) {
      if (!strip_suffix(name, suffix)) continue;
      stripped = true;
      if (quant_mode.empty()) quant_mode = suffix_quant_mode(suffix);
    }
  }
  if (specs::has_preset(specs::PresetKind::model, name)) return {name, name, "", quant_mode};
  for (const auto& same : kSameArchitecture) {
    if (name == same.checkpoint) {
      return {same.preset, name, std::string("model ") + same.preset + ": " + same.source, quant_mode};
    }
  }
  return {"", name, "", quant_mode};
}

}  // namespace fleetcast::validation
