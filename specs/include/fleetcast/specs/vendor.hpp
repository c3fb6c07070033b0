#pragma once
// Who makes a GPU, read from its architecture label as the presets spell it: the kernel-level figures and the
// measured runs on record differ by maker (calibration's datasheet profiles, the GPU-without-a-fit error).

#include <string>

namespace fleetcast::specs {

// "NVIDIA" (sm_*), "AMD" (gfx*), "Huawei" (ascend*), "Intel" (xe*), "" for any other label (a user's own hardware).
std::string vendor_of_arch(const std::string& arch);

// Why a serving engine cannot run on a GPU of this architecture, or "" where it can (or where the maker is not
// known): TensorRT-LLM is CUDA-only (NVIDIA), ATOM is ROCm-only (AMD); vLLM, SGLang and DeepInfer are not restricted
// here. A planner skips such a pair rather than forecast an engine on a GPU it was never built for.
std::string runtime_vendor_mismatch(const std::string& runtime, const std::string& arch);

}  // namespace fleetcast::specs
