#include "fleetcast/specs/hardware.hpp"

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

}  // namespace fleetcast::specs
