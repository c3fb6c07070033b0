#pragma once
// Which shipped hardware preset a measured device is: its datasheet peaks are what the summary holds
// achieved rates against.

#include <optional>
#include <string>

#include "fleetcast/specs/hardware.hpp"

namespace fleetcast::engine {

// The preset whose name appears in the device name, longest name first ("NVIDIA GB200" is gb200, not
// b200; "NVIDIA H100 80GB HBM3" is h100). None for a device without a preset.
std::optional<specs::HardwareSpec> datasheet_for(const std::string& device_name);

// The folder name a device's traces go under in traces/data/: the preset name where there is one,
// otherwise the device name in lower case with runs of other characters as '-' ("nvidia-rtx-6000-ada").
std::string device_slug(const std::string& device_name);

}  // namespace fleetcast::engine
