#pragma once
// The serving engine a benchmark's backend name stands for, one rule for every reader of measured results.
#include <string>

namespace fleetcast::traces::detail {

// The engine a name starts with: "sglang-oai-chat" -> "sglang", "vllm" -> "vllm", "trt-llm" or "tensorrt_llm" ->
// "trtllm", "atom" -> "atom" (AMD's ATOM); "" when it names none.
inline std::string engine_prefix(const std::string& name) {
  if (name.rfind("sglang", 0) == 0) return "sglang";
  if (name.rfind("vllm", 0) == 0) return "vllm";
  if (name.rfind("trt", 0) == 0 || name.rfind("tensorrt", 0) == 0) return "trtllm";
  if (name.rfind("atom", 0) == 0) return "atom";
  return "";
}

// The name's engine, or, where it starts with no engine, that of the first hyphen-separated part after it that does:
// InferenceX names an engine behind an orchestrator or transfer library that way ("dynamo-trt", "mori-sglang",
// "llmd-vllm", "mooncake-atom"), and the engine's scheduler forms the steps. "" when no part names one.
// Case-sensitive: a reader that takes any case lower-cases first.
inline std::string engine_of(const std::string& backend) {
  for (std::size_t start = 0; start < backend.size();) {
    if (std::string engine = engine_prefix(backend.substr(start)); !engine.empty()) return engine;
    const std::size_t dash = backend.find('-', start);
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  return "";
}

}  // namespace fleetcast::traces::detail
