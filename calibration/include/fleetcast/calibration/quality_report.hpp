#pragma once
// `fleetcast calibrate check`: a profile's fit quality as a table, with the ops whose error is above a
// threshold flagged. An op is flagged when its leave-one-out or its held-out-shape median APE exceeds it.
#include <string>
#include <vector>

#include "fleetcast/calibration/profile.hpp"

namespace fleetcast::calibration {

struct QualityReport {
  std::string table;                 // one line per op, then the flagged ones
  std::vector<std::string> flagged;  // "op dtype"
};

QualityReport quality_report(const Profile& p, double threshold);

// The profile's SimGrid network factors per transport: the route they correct, the bands, and the error of the
// factored route against the measured transfers (part of quality_report's table).
std::string network_factors_table(const Profile& p);

}  // namespace fleetcast::calibration
