#pragma once
// The CPU backend: every op with real CPU kernels in fp32 (a bf16 or fp8 request runs, and is recorded,
// as fp32), timed with the steady clock. It runs any plan anywhere, so CI exercises the whole harness and
// the calibration stage has real traces to fit without a GPU.

#include <memory>

#include "fleetcast/engine/backend.hpp"
#include "fleetcast/engine/ranks.hpp"

namespace fleetcast::engine {

// With `ranks` spanning several processes (an MPI launch) the backend measures the collectives between
// them and skips every other op: the ranks share the launch's CPUs, and one process measures those alone.
// `ranks` must outlive the backend.
std::unique_ptr<Backend> make_cpu_backend(Ranks* ranks = nullptr);

}  // namespace fleetcast::engine
