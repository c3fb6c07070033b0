#include "fleetcast/specs/vendor.hpp"

namespace fleetcast::specs {

std::string vendor_of_arch(const std::string& arch) {
  if (arch.starts_with("sm_")) return "NVIDIA";
  if (arch.starts_with("gfx")) return "AMD";
  if (arch.starts_with("ascend")) return "Huawei";
  if (arch.starts_with("xe")) return "Intel";
  return "";
}

std::string runtime_vendor_mismatch(const std::string& runtime, const std::string& arch) {
  const std::string vendor = vendor_of_arch(arch);
  const auto only = [&](const char* engine, const char* maker) {
    if (vendor.empty() || vendor == maker) return std::string();
    return std::string(engine) + " runs on " + maker + " GPUs only; " + arch + " is " + vendor + "'s";
  };
  if (runtime == "trtllm") return only("TensorRT-LLM (CUDA)", "NVIDIA");
  if (runtime == "atom") return only("ATOM (ROCm)", "AMD");
  return "";
}

}  // namespace fleetcast::specs
