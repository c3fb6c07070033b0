#pragma once
// Profiles as files: the JSON schema (owned here), the profiles shipped in calibration/profiles/ and
// compiled in, and the rule that picks one for a (hardware, runtime): the most specific wins.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fleetcast/calibration/profile.hpp"

namespace fleetcast::calibration {

// Strict: unknown keys, missing fields, wrong types and efficiencies outside (0, 1] are InputErrors naming
// the file and field.
Profile parse_profile(const nlohmann::json& j, const std::string& file);

// Every profile shipped in calibration/profiles/, parsed.
std::vector<Profile> shipped_profiles();

// Among `candidates`, the profile for (hardware, runtime): one made for that runtime beats one for every
// runtime (""), and within those a measured profile beats a fitted one beats a datasheet one. None fits:
// the datasheet profile computed from the hardware spec (for hardware that ships no profile).
Profile select_profile(const std::vector<Profile>& candidates, const specs::HardwareSpec& hardware,
                       const std::string& runtime);

// select_profile over the shipped profiles.
Profile profile_for(const specs::HardwareSpec& hardware, const std::string& runtime);

}  // namespace fleetcast::calibration
