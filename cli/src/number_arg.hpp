#pragma once
// A number given on the command line: the whole text as one number, or nothing ("1.5x", "" and "abc" are not
// numbers; std::stod alone would read "1.5x" as 1.5). Each flag checks its own range and words its own error.
#include <optional>
#include <string>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/number_text.hpp"

namespace fleetcast::cli {

inline std::optional<double> parse_number(const std::string& text) { return whole_text_number(text); }

// A whole number >= min given to `flag`, or an InputError naming the flag and the text.
inline int whole_number_arg(const std::string& flag, const std::string& text, int min) {
  const auto v = parse_number(text);
  if (!v || *v != static_cast<double>(static_cast<long long>(*v)) || *v < min || *v > 2147483647.0) {
    throw InputError("", flag, text, "expected a whole number >= " + std::to_string(min));
  }
  return static_cast<int>(*v);
}

}  // namespace fleetcast::cli
