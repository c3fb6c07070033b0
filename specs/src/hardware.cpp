#include "fleetcast/specs/hardware.hpp"

#include <algorithm>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::specs {

double HardwareSpec::peak_flops(const std::string& compute_class) const {
  auto it = peak_tflops.find(compute_class);
  if (it == peak_tflops.end()) {
    std::string listed;
    for (const auto& [cls, tflops] : peak_tflops) listed += (listed.empty() ? "" : ", ") + cls;
    throw InputError("", "peak_tflops." + compute_class, "",
                     "hardware '" + name + "' has no " + compute_class +
                         " tensor-core rate; it lists: " + (listed.empty() ? std::string("none") : listed));
  }
  return it->second * 1e12;
}

double HardwareSpec::scale_up_bytes_per_s_one_way(int group) const {
  if (scale_up_topology != "mesh" || scale_up_domain_gpus < 2) return nvlink_bytes_per_s_one_way();
  const int g = std::clamp(group, 2, scale_up_domain_gpus);
  return nvlink_bytes_per_s_one_way() * (g - 1) / (scale_up_domain_gpus - 1);
}

}  // namespace fleetcast::specs
