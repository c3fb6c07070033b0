#pragma once
// The CUDA backend: cuBLASLt GEMMs (BF16, FP8 with per-tensor scales), the backend's own RMSNorm and
// SwiGLU kernels, device-to-device copies; timed with CUDA events around each repetition, with L2 flushed
// before each. Runs on device 0 (choose another with CUDA_VISIBLE_DEVICES). Other ops are skipped with
// the reason until their kernels land.

#include <memory>
#include <string>

#include "fleetcast/engine/backend.hpp"

namespace fleetcast::engine {

// Throws HardwareAbsent, with the CUDA error where there is one, when no GPU answers.
std::unique_ptr<Backend> make_cuda_backend();

// CUDA devices this process sees; 0 with `why` saying why (no driver, no device) when there are none.
int cuda_device_count(std::string* why);

}  // namespace fleetcast::engine
