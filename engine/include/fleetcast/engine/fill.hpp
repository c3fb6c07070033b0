#pragma once
// Input data as a pure function of (seed, index): a device kernel and the CPU reference compute the same
// values without copying tensors, so a large GPU case can be checked on a sample of its outputs by
// regenerating just the input rows that sample needs. Full-entropy values, not small integers: tensor-core
// power draw (and so clocks) depends on the bits multiplied, and calibration wants realistic data.
// Compiled by nvcc for the device too, hence the plain C-style code and FLEETCAST_HD.

#include <cstdint>
#include <cstring>
#include <math.h>  // rintf, on the host and in device code alike

#if defined(__CUDACC__)
#define FLEETCAST_HD __host__ __device__
#else
#define FLEETCAST_HD
#endif

namespace fleetcast::engine {

// How a tensor is stored; the values a tensor holds are rounded to this on the host and the device alike.
enum class Storage : int { fp32 = 0, bf16 = 1, fp8_e4m3 = 2 };

// Per-tensor scale of FP8 tensors: stored = e4m3(value / scale). A power of two, so dequantised values
// are exact in fp32; 2^-8 maps the [-1, 1) inputs onto most of e4m3's range (max 448).
inline constexpr float kFp8Scale = 1.0f / 256.0f;

FLEETCAST_HD inline std::uint64_t mix64(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1) with 24 random bits.
FLEETCAST_HD inline float uniform_pm1(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ULL + index + 0x632be59bd9b4e019ULL);
  return static_cast<float>(static_cast<std::int64_t>(h >> 40) - (1LL << 23)) * (1.0f / 8388608.0f);
}

FLEETCAST_HD inline std::uint32_t float_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

FLEETCAST_HD inline float bits_float(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Round to the nearest bfloat16, ties to even (finite inputs only; ours are in [-1, 1)).
FLEETCAST_HD inline float round_bf16(float x) {
  const std::uint32_t u = float_bits(x);
  const std::uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);
  return bits_float(rounded & 0xffff0000u);
}

// Round to the nearest FP8 E4M3 value, ties to even, saturating at +-448 (the __NV_SATFINITE behaviour of
// CUDA's conversions). Normals have 3 mantissa bits; below 2^-6 the spacing is the subnormal 2^-9.
FLEETCAST_HD inline float round_e4m3(float x) {
  const float a = x < 0.0f ? -x : x;
  int exponent = static_cast<int>((float_bits(a) >> 23) & 0xffu) - 127;
  if (exponent < -6) exponent = -6;
  const float quantum = bits_float(static_cast<std::uint32_t>(exponent - 3 + 127) << 23);
  float q = rintf(a / quantum) * quantum;  // a / quantum is exact: quantum is a power of two
  if (q > 448.0f) q = 448.0f;
  return x < 0.0f ? -q : q;
}

// The value element `index` of a tensor holds, as the kernel sees it after dequantisation: a uniform
// [-1, 1) draw times `amplitude`, plus `offset`, rounded to the storage format.
FLEETCAST_HD inline float stored_value(Storage s, std::uint64_t seed, std::uint64_t index, float amplitude,
                                       float offset) {
#if defined(__CUDA_ARCH__)
  // Separate roundings, as on the host: nvcc would otherwise fuse this into an FMA and differ.
  const float v = __fadd_rn(__fmul_rn(uniform_pm1(seed, index), amplitude), offset);
#else
  const float v = uniform_pm1(seed, index) * amplitude + offset;
#endif
  if (s == Storage::bf16) return round_bf16(v);
  if (s == Storage::fp8_e4m3) return round_e4m3(v / kFp8Scale) * kFp8Scale;
  return v;
}

// Byte `index` of a buffer that memcpy copies.
FLEETCAST_HD inline unsigned char byte_value(std::uint64_t seed, std::uint64_t index) {
  return static_cast<unsigned char>(mix64(seed * 0x9e3779b97f4a7c15ULL + index) >> 56);
}

}  // namespace fleetcast::engine
