#pragma once
// A number given on the command line: the whole text as one number, or nothing ("1.5x", "" and "abc" are not
// numbers; std::stod alone would read "1.5x" as 1.5). Each flag checks its own range and words its own error.
#include <exception>
#include <optional>
#include <string>

namespace fleetcast::cli {

inline std::optional<double> parse_number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace fleetcast::cli
