#pragma once
// A backend runs op cases on one device: the CPU (real CPU kernels) or a CUDA GPU. The harness asks it
// what it can run, has it prepare a case (allocate and fill the inputs), check the result against the
// CPU reference, and time repetitions; everything else (plans, statistics, traces) is shared.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/engine/shape.hpp"
#include "fleetcast/specs/hardware.hpp"
#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::engine {

// What a backend runs a requested case as, or why it cannot run it.
struct Support {
  bool supported = false;
  std::string dtype;   // the precision that really runs: "fp32" on the CPU for a bf16 request
  std::string reason;  // when not supported, for the skipped list
};

// One case with its inputs on the device, ready to run.
class PreparedOp {
public:
  virtual ~PreparedOp() = default;
  // One execution (on the GPU: enqueued on the backend's stream, not waited for).
  virtual void run() = 0;
  // Runs once and compares with the CPU reference: every output when `full`, a sample otherwise.
  // Throws CheckFailed on a mismatch.
  virtual CheckResult check(bool full) = 0;
  // A model_step of a MoE model: the token-expert rows each of this rank's routed experts received, one list per
  // MoE layer, in the last check (the routing follows the step's data). Empty for every other op.
  virtual std::vector<std::vector<std::int64_t>> expert_rows() const { return {}; }
};

struct TimingOptions {
  int warmup = 0;
  int repetitions = 1;
  bool flush_cache = true;  // evict the last-level cache before each repetition, as weights arrive cold
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "cpu", "cuda"
  // The trace header's device, version and host fields; the harness adds commit, date and plan.
  virtual traces::CalibrationHeader describe() const = 0;
  virtual Support support(const OpInfo& op, const std::string& dtype, const Shape& shape) const = 0;
  // `dtype` is Support::dtype. Throws std::runtime_error (a failed run) when the device cannot.
  virtual std::unique_ptr<PreparedOp> prepare(const OpInfo& op, const std::string& dtype, const Shape& shape) = 0;
  // Seconds of each of `repetitions` timed runs, after `warmup` untimed ones.
  virtual std::vector<double> time(PreparedOp& op, const TimingOptions& options) = 0;
  // The datasheet of this device when it matches a hardware preset: the summary's share of peak.
  virtual std::optional<specs::HardwareSpec> datasheet() const { return std::nullopt; }
  // What carries the collectives when they span processes ("mpi": MPI between CPU ranks; "nccl": NCCL
  // between the GPUs of an MPI launch); "" for one process (NCCL over the GPUs of this node). The harness
  // records it in each collective's shape as "transport".
  virtual std::string collective_transport() const { return ""; }
};

}  // namespace fleetcast::engine
