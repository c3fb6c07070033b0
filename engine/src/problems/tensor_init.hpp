#pragma once
// How a backend fills one input tensor: element i holds stored_value(storage, seed, i, amplitude, offset),
// so a device kernel and the host compute the same numbers (see fill.hpp).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine {

struct TensorInit {
  std::uint64_t seed = 0;
  std::size_t count = 0;
  float amplitude = 1.0f;
  float offset = 0.0f;

  float value(Storage s, std::size_t i) const { return stored_value(s, seed, i, amplitude, offset); }
  std::vector<float> values(Storage s, std::size_t begin, std::size_t n) const {
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = value(s, begin + i);
    return out;
  }
};

// Storage of a dtype name: "bf16", "fp8" (E4M3), anything else fp32.
inline Storage storage_of(std::string_view dtype) {
  if (dtype == "bf16") return Storage::bf16;
  if (dtype == "fp8") return Storage::fp8_e4m3;
  return Storage::fp32;
}

}  // namespace fleetcast::engine
