#include "fleetcast/specs/vendor.hpp"

namespace fleetcast::specs {

std::string vendor_of_arch(const std::string& arch) {
  if (arch.starts_with("sm_")) return "NVIDIA";
  if (arch.starts_with("gfx")) return "AMD";
  if (arch.starts_with("ascend")) return "Huawei";
  return "";
}

}  // namespace fleetcast::specs
