#pragma once
// The schema-v2 parts of a profile (predictors, collectives, quality, traces) and v3 (network_factors) to and from JSON, strictly:
// every problem is an InputError naming the file, the field path ("predictors[2].roofline.t0_s") and value.
#include <nlohmann/json.hpp>
#include <string>

#include "fleetcast/calibration/profile.hpp"

namespace fleetcast::calibration::detail {

inline constexpr const char* kV2Keys[] = {"predictors", "collectives", "quality", "traces", "network_factors"};

void write_v2(const Profile& p, nlohmann::json& j);
void read_v2(const nlohmann::json& j, const std::string& file, Profile& p);

}  // namespace fleetcast::calibration::detail
