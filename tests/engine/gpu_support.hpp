#pragma once
// What the CUDA backend's tests share: whether a GPU answers.

#include <catch2/catch.hpp>
#include <string>

#include "cuda_backend.hpp"

namespace fleetcast::engine::test {

// True when a GPU answers; otherwise says why the test is skipped.
inline bool have_gpu() {
  std::string why;
  if (cuda_device_count(&why) > 0) return true;
  WARN("skipped: no CUDA GPU on this machine (" << why << ")");
  return false;
}

}  // namespace fleetcast::engine::test
