#pragma once
// model_step's FP8 quantisation on the device (fp8_quant_kernels.cu), as src/problems/fp8_quant.hpp defines it
// on the host: scale = absmax / 448 (1 for a tensor of zeros), stored = e4m3(value / scale), to nearest even.
// Capturable in a CUDA graph: the absmax and the scale stay on the device (the scale is what cuBLASLt's
// CUBLASLT_MATMUL_DESC_A_SCALE_POINTER / B_SCALE_POINTER read), no host sync, no allocation.

#include <cuda_runtime.h>

#include <cstdint>

namespace fleetcast::engine::cuda {

// The bf16 activations x [rows, width] quantised per tensor into out [rows, width] (E4M3), their scale into
// *scale. `rows_on_device` (nullable) holds the row count when only the device knows it (the routed experts'
// rows, offsets[experts]); `max_rows` bounds it and is the count otherwise. `absmax` is a scratch word.
struct Fp8Quantise {
  const void* x;
  void* out;
  float* scale;
  unsigned* absmax;
  const std::int32_t* rows_on_device;
  std::int64_t max_rows, width;
};
void quantise_fp8(const Fp8Quantise& a, cudaStream_t stream);

// count floats that are E4M3 values already (the host's quantise_fp8_weights) into E4M3 storage, exactly.
void to_fp8(const float* in, void* out, std::int64_t count, cudaStream_t stream);

}  // namespace fleetcast::engine::cuda
