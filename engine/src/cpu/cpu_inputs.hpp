#pragma once
// How the CPU backend holds an op's inputs: filled in fp32 from their TensorInit (in parallel chunks), and read
// back by the checker as float ranges. Shared by every CPU op.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../problems/tensor_init.hpp"
#include "fleetcast/engine/check.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {

inline std::vector<float> filled(const TensorInit& t) {
  std::vector<float> v(t.count);
  constexpr std::int64_t kChunk = 1 << 16;
  const auto chunks = static_cast<std::int64_t>((t.count + kChunk - 1) / kChunk);
  parallel_for(chunks, kChunk, [&](std::int64_t c) {
    const std::size_t end = std::min(t.count, static_cast<std::size_t>((c + 1) * kChunk));
    for (auto i = static_cast<std::size_t>(c * kChunk); i < end; ++i) v[i] = t.value(Storage::fp32, i);
  });
  return v;
}

template <class T>
ReadRange reader(const std::vector<T>& v) {
  return [&v](std::size_t offset, std::size_t count) {
    return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(offset),
                              v.begin() + static_cast<std::ptrdiff_t>(offset + count));
  };
}

}  // namespace fleetcast::engine::cpu
