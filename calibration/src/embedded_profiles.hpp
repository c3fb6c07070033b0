#pragma once
// The profiles of calibration/profiles/, compiled in by cmake/embed_profiles.cmake.
#include <span>
#include <string_view>

namespace fleetcast::calibration::detail {
struct EmbeddedProfile {
  const char* name;
  const char* json;
};
std::span<const EmbeddedProfile> embedded_profiles();

// The JSON compiled in under `name` ("accuracy/held-out"), or nullptr when there is none.
inline const char* embedded_json(std::string_view name) {
  for (const EmbeddedProfile& e : embedded_profiles()) {
    if (name == e.name) return e.json;
  }
  return nullptr;
}
}  // namespace fleetcast::calibration::detail
