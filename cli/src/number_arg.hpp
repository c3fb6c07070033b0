#pragma once
// A whole number given on the command line (a number of any kind: whole_text_number, specs/number_text.hpp; each
// flag checks its own range and words its own error).
#include <string>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/number_text.hpp"

namespace fleetcast::cli {

// A whole number >= min given to `flag`, or an InputError naming the flag and the text.
inline int whole_number_arg(const std::string& flag, const std::string& text, int min) {
  const auto v = whole_text_number(text);
  if (!v || *v != static_cast<double>(static_cast<long long>(*v)) || *v < min || *v > 2147483647.0) {
    throw InputError("", flag, text, "expected a whole number >= " + std::to_string(min));
  }
  return static_cast<int>(*v);
}

}  // namespace fleetcast::cli
