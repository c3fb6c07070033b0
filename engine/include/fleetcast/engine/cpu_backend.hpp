#pragma once
// The CPU backend: every op with real CPU kernels in fp32 (a bf16 or fp8 request runs, and is recorded,
// as fp32), timed with the steady clock. It runs any plan anywhere, so CI exercises the whole harness and
// the calibration stage has real traces to fit without a GPU.

#include <memory>

#include "fleetcast/engine/backend.hpp"

namespace fleetcast::engine {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace fleetcast::engine
