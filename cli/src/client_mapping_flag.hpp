#pragma once
// The silicon CSV rows' client mapping flags that `validate`, `calibrate serving` and `calibrate prompt-ratio` share:
// --fixed-lengths, --drawn-lengths (the default) or --benchmark-clients (at most one), applied to a CSV's rows and
// refused for benchmark files, which state their own lengths (traces::CsvClientMapping).
#include <string>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::cli {

struct ClientMappingFlag {
  std::string given;  // the flag on the command line, empty for the default

  traces::CsvClientMapping mapping() const {
    if (given == "--fixed-lengths") return traces::CsvClientMapping::fixed_lengths;
    if (given == "--benchmark-clients") return traces::CsvClientMapping::as_run;
    return traces::CsvClientMapping::drawn_lengths;  // the default, --drawn-lengths or none
  }

  // True where `arg` is one of the flags (taken); a second, different one is an InputError.
  bool take(const std::string& arg) {
    if (arg != "--benchmark-clients" && arg != "--drawn-lengths" && arg != "--fixed-lengths") return false;
    if (!given.empty() && arg != given) {
      throw InputError("", arg, "", "conflicts with " + given + ": give one client mapping");
    }
    given = arg;
    return true;
  }

  // Maps the rows of a silicon CSV (`from_silicon`); for benchmark files a flag given is an InputError.
  void apply(traces::MeasuredServingResults& results, bool from_silicon) const {
    if (from_silicon) {
      traces::apply_client_mapping(results, mapping());
    } else if (!given.empty()) {
      throw InputError("", given, "", "maps a silicon CSV's rows: give --silicon FILE");
    }
  }
};

}  // namespace fleetcast::cli
