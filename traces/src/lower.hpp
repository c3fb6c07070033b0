#pragma once
// Lower-casing for the readers, as validation's text.hpp lower(); traces sits below validation and cannot include it.

#include <algorithm>
#include <cctype>
#include <string>

namespace fleetcast::traces::detail {

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace fleetcast::traces::detail
