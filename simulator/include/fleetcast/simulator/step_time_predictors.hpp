#pragma once
// The per-op predictors of a fitted profile (schema v2, docs/CALIBRATION.md "Predictors"), asked for the ops
// the step-time model costs at the shapes the engine measures them: a GEMM by (m, n, k), decode attention by
// (batch, context, heads, head_dim, page_size), prefill attention by (batch, chunk, context, ...), RMSNorm,
// SwiGLU and RoPE by their token counts and widths, MoE ops by rows and experts, collectives by bytes and group
// size. FLOPs and bytes are counted as engine/src/ops.cpp and engine/src/moe_step_ops.cpp count them, because a
// predictor interpolates the ratio of the measured time to its roofline at those counts.

#include <map>
#include <optional>
#include <string>

#include "fleetcast/calibration/profile.hpp"

namespace fleetcast::simulator {

// Named integer shape fields of one op run ("m" -> 512).
using OpShape = std::map<std::string, double>;

class OpPredictors {
 public:
  explicit OpPredictors(const calibration::Profile& profile) : profile_(&profile) {}

  // True when the profile has anything this class answers from (a datasheet profile has not).
  bool any() const;
  // The predictor's time for `op` in `dtype` at `shape` (every dim the predictor varies must be in `shape`), or
  // nothing when the profile has no predictor for it.
  std::optional<double> time_s(const std::string& op, const std::string& dtype, const OpShape& shape) const;
  // A fitted (measured) collective's time for one call moving `bytes` (nccl-tests' size) over `gpus`; nothing
  // without a fitted model for that op and group size.
  std::optional<double> collective_s(const std::string& op, int gpus, double bytes) const;

  // FLOPs and bytes of one run as the engine counts them (e: bytes per element of the dtype).
  static std::pair<double, double> work(const std::string& op, const OpShape& s, double e);

 private:
  const calibration::Profile* profile_;
};

}  // namespace fleetcast::simulator
