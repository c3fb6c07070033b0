// Conversions between the element types the kernels store (fp32, bf16, FP8 E4M3) and the fp32 they compute in:
// one definition for every kernel file, so a rounding mode cannot differ between them.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace fleetcast::engine::cuda {

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline float to_float(__nv_fp8_e4m3 v) { return static_cast<float>(v); }

// Round to nearest even, as the CPU references' round_bf16 does.
template <class T>
__device__ inline T from_float(float v);
template <>
__device__ inline float from_float<float>(float v) {
  return v;
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
// To nearest even, saturating at +-448 (__NV_SATFINITE), as the CPU's round_e4m3.
template <>
__device__ inline __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}

}  // namespace fleetcast::engine::cuda
