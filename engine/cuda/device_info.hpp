#pragma once
// The trace header for a CUDA device: name, SMs, clocks, driver, CUDA runtime, cuBLASLt and NCCL versions.

#include <cuda_runtime.h>

#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::engine::cuda {

traces::CalibrationHeader describe_device(int device, const cudaDeviceProp& props);

}  // namespace fleetcast::engine::cuda
