// Test helper for engine_cli_test.sh: reads a calibration trace with the strict reader and prints the
// backend and the number of measurements; exit 2 with the reader's message when it rejects the file.
#include <cstdio>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/calibration_trace.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: read_trace TRACE.jsonl\n");
    return 2;
  }
  try {
    const auto t = fleetcast::traces::read_calibration_trace(argv[1]);
    std::printf("%s %zu\n", t.header.backend.c_str(), t.measurements.size());
    return 0;
  } catch (const fleetcast::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
