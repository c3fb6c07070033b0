#pragma once
// Who makes a GPU, read from its architecture label as the presets spell it: the kernel-level figures and the
// measured runs on record differ by maker (calibration's datasheet profiles, the GPU-without-a-fit error).

#include <string>

namespace fleetcast::specs {

// "NVIDIA" (sm_*), "AMD" (gfx*), "Huawei" (ascend*), "" for any other label (a user's own hardware).
std::string vendor_of_arch(const std::string& arch);

}  // namespace fleetcast::specs
