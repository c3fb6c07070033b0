// The parameters both profile fits share (profile_parameters.hpp).
#include "profile_parameters.hpp"

#include <algorithm>

namespace fleetcast::validation::detail {

double gemm_factor(const calibration::Profile& p, const calibration::Profile& datasheet) {
  double factor = 0.0;
  for (const auto& [cls, eff] : p.matmul_efficiency) {
    const auto it = datasheet.matmul_efficiency.find(cls);
    if (it != datasheet.matmul_efficiency.end() && it->second > 0.0) factor = std::max(factor, eff / it->second);
  }
  return factor > 0.0 ? factor : 1.0;
}

void set_shared_parameters(calibration::Profile& p, const calibration::Profile& datasheet, const Eigen::VectorXd& x) {
  p.matmul_efficiency = datasheet.matmul_efficiency;
  for (auto& [cls, eff] : p.matmul_efficiency) eff = std::min(1.0, eff * x(0));
  p.attention_compute_efficiency = x(1);
  p.memory_efficiency = x(2);
  p.step_overhead_s = x(3);
  p.nvlink_efficiency = x(4);
  p.sequence_overhead_s = x(5);
}

}  // namespace fleetcast::validation::detail
