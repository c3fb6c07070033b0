#pragma once
// Per-tensor FP8 E4M3 quantisation as serving engines run FP8 checkpoints (vLLM's per-tensor FP8 linear
// layers: each weight stored E4M3 with one fp32 scale, each activation quantised with a dynamic per-tensor
// scale before its FP8 GEMM): scale = absmax / 448, 448 being E4M3's largest finite value, so the largest
// magnitude lands on it and nothing saturates; stored = e4m3(value / scale) (round_e4m3 in fill.hpp: to
// nearest even); the GEMM multiplies the stored values and scales its fp32 sums by the two scales. A tensor of
// zeros takes scale 1. The CPU step's emulation and the CUDA step's weight upload both quantise here, so they
// hold the same E4M3 values; the CUDA activation kernel computes the same scale and rounding on the device.

#include <cstdint>
#include <vector>

namespace fleetcast::engine {

inline constexpr float kE4m3Max = 448.0f;

// absmax(v) / 448, or 1 when every value is zero.
float fp8_scale(const float* v, std::int64_t count);

// out[i] = round_e4m3(v[i] / scale): the E4M3 values (exact in fp32), before the scale. `out` may be `v`.
void quantise_fp8(const float* v, std::int64_t count, float scale, float* out);

// A weight tensor of `blocks` equal consecutive parts (1: the whole tensor; a routed-expert stack: one part per
// expert, as vLLM's per-tensor FP8 MoE keeps a scale per expert), each quantised with its own scale.
struct Fp8Weights {
  std::vector<float> values;  // E4M3 values, exact in fp32
  std::vector<float> scales;  // one per block
};
Fp8Weights quantise_fp8_weights(const std::vector<float>& w, std::int64_t blocks);

}  // namespace fleetcast::engine
