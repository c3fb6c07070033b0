#pragma once
// The step log as a Chrome trace: the JSON Object Format of the Trace Event Format that Perfetto
// (ui.perfetto.dev) and chrome://tracing open. One process per replica (pid = replica index, named by "M"
// metadata events), one "X" complete event per step (ts and dur in microseconds of simulated time, args: the
// batch and the step time by op class) and "C" counter events at each step's end for the replica's queue and
// KV use. otherData says which window the steps came from and whether the step cap cut them short.

#include <cstdint>
#include <string>

#include "fleetcast/simulator/recorder.hpp"

namespace fleetcast::simulator {

struct ChromeTraceInfo {
  std::string scenario;   // the scenario's name
  std::string simulator;  // version_string()
  int replicas = 0;
  double window_start_s = 0.0;  // the window the steps were taken from
  double window_end_s = 0.0;
  bool measurement_window = true;  // that window is the measurement window (no --trace-window)
  std::size_t max_steps = 0;
};

// Events in the order the steps ended; one line per event.
std::string chrome_trace_json(const Recorder& recorder, const ChromeTraceInfo& info);

}  // namespace fleetcast::simulator
