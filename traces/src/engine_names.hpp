#pragma once
// The serving engine a benchmark's backend name stands for, one rule for every reader of measured results.
#include <string>

namespace fleetcast::traces::detail {

// "sglang-oai-chat" -> "sglang", "vllm" -> "vllm", "trt-llm" or "tensorrt_llm" -> "trtllm"; "" when it names none.
// Case-sensitive: a reader that takes any case lower-cases first.
inline std::string engine_of(const std::string& backend) {
  if (backend.rfind("sglang", 0) == 0) return "sglang";
  if (backend.rfind("vllm", 0) == 0) return "vllm";
  if (backend.rfind("trt", 0) == 0 || backend.rfind("tensorrt", 0) == 0) return "trtllm";
  return "";
}

}  // namespace fleetcast::traces::detail
