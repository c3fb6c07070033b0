#pragma once
// The host side of a copy: source bytes as every backend fills them, and a check of the destination on
// sampled runs of bytes (all of them when small).

#include <cstdint>
#include <string>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/shape.hpp"

namespace fleetcast::engine {

struct MemcpyProblem {
  explicit MemcpyProblem(const Shape& shape) : bytes(shape.at("bytes")) {}
  static constexpr std::uint64_t kSeed = 701;
  std::int64_t bytes;
  // `dst` reads destination bytes as floats 0..255.
  CheckResult check(const ReadRange& dst, const std::string& what, bool full) const;
};

}  // namespace fleetcast::engine
