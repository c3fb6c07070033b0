#pragma once
// The profiles of calibration/profiles/, compiled in by cmake/embed_profiles.cmake.
#include <span>

namespace fleetcast::calibration::detail {
struct EmbeddedProfile {
  const char* name;
  const char* json;
};
std::span<const EmbeddedProfile> embedded_profiles();
}  // namespace fleetcast::calibration::detail
