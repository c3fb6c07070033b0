#pragma once
// A number written as text, read whole: "8", "0.85" and "1e-3" are numbers; "1.5x", "", "abc" and "8 GB" are not
// (std::stod alone reads "1.5x" as 1.5 and would let a typo through as a value). Every reader of numbers in text
// (command-line flags, launch settings, benchmark records' string values, kernel CSVs) takes this one, then checks
// its own range and words its own error.
#include <exception>
#include <optional>
#include <string>

namespace fleetcast {

inline std::optional<double> whole_text_number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {  // std::invalid_argument (no number) or std::out_of_range (beyond a double)
  }
  return std::nullopt;
}

}  // namespace fleetcast
