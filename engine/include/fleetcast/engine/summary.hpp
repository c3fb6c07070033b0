#pragma once
// The table `fleetcast-engine run` prints at the end: per op class and precision, the median and best
// achieved GFLOPS and GB/s over the cases measured, and where the device matches a hardware preset, the
// share of its datasheet peak (compute for GEMMs, memory bandwidth for the rest), so a slow kernel shows.

#include <optional>
#include <string>

#include "fleetcast/engine/harness.hpp"
#include "fleetcast/specs/hardware.hpp"

namespace fleetcast::engine {

std::string summary_text(const RunOutcome& outcome, const std::optional<specs::HardwareSpec>& datasheet);

}  // namespace fleetcast::engine
