#pragma once
// Small text helpers for reading names out of benchmark rows (checkpoints, systems, quant modes).

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace fleetcast::validation::detail {

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Drops `suffix` from the end of s when s is longer than it and ends with it; says whether it did.
inline bool strip_suffix(std::string& s, std::string_view suffix) {
  if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  s.resize(s.size() - suffix.size());
  return true;
}

}  // namespace fleetcast::validation::detail
