#pragma once
// The CUDA backend: cuBLASLt GEMMs (BF16, FP8 with per-tensor scales), the backend's own RMSNorm and
// SwiGLU kernels, device-to-device copies; timed with CUDA events around each repetition, with L2 flushed
// before each. Runs on device 0 (choose another with CUDA_VISIBLE_DEVICES; under MPI, the local rank's).
// Other ops are skipped with the reason until their kernels land.

#include <memory>
#include <string>

#include "fleetcast/engine/backend.hpp"
#include "fleetcast/engine/ranks.hpp"

namespace fleetcast::engine {

// Throws HardwareAbsent, with the CUDA error where there is one, when no GPU answers. Under an MPI launch
// (`ranks` spanning several processes) it runs on the GPU of the rank's local index and measures NCCL
// collectives across the ranks (one GPU each, any number of nodes); `ranks` must outlive the backend.
std::unique_ptr<Backend> make_cuda_backend(Ranks* ranks = nullptr);

// CUDA devices this process sees; 0 with `why` saying why (no driver, no device) when there are none.
int cuda_device_count(std::string* why);

}  // namespace fleetcast::engine
