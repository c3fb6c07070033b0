#pragma once
// One serving simulation of a scenario, start to report. SimGrid keeps one engine per process: call
// simulate() at most once per process, or simulate_in_child() as often as needed.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::simulator {

// A Chrome trace's time span in simulated seconds: the steps overlapping [start_s, end_s).
struct TraceWindow {
  double start_s = 0.0;
  double end_s = 0.0;
};

struct RunOptions {
  bool progress_json = false;               // one JSON object per line on stderr: phase, done, total
  std::string file;                         // the scenario's file, for error messages
  bool timeline = false;                    // add the sampler's time series to the report as "timeline"
  bool chrome_trace = false;                // keep a step log and return it as a Chrome trace (chrome_trace.hpp)
  std::optional<TraceWindow> trace_window;  // none: the measurement window
  std::size_t trace_max_steps = 100000;     // step events written at most (the first ones of the window)
  // Every check the simulation makes before its first event (specs resolved, traces read, memory fits, pools
  // planned, requests drawn), then a summary of the plan (check_summary_json) as the report, no SimGrid engine:
  // unlike a simulation, callable any number of times in one process.
  bool check_only = false;
};

struct SimulationResult {
  nlohmann::json report;
  std::string chrome_trace;  // Trace Event Format JSON; empty unless RunOptions::chrome_trace
};

// Throws InputError for a deployment the model does not fit on; returns the report (see report.hpp) and the
// Chrome trace when asked for.
SimulationResult run_simulation(const specs::ScenarioSpec& scenario, const RunOptions& options = {});
inline nlohmann::json simulate(const specs::ScenarioSpec& scenario, const RunOptions& options = {}) {
  return run_simulation(scenario, options).report;
}

// Runs run_simulation() in a forked child and returns what it returned; an error in the child is rethrown here
// (InputError as InputError, anything else as std::runtime_error).
SimulationResult run_simulation_in_child(const specs::ScenarioSpec& scenario, const RunOptions& options = {});
inline nlohmann::json simulate_in_child(const specs::ScenarioSpec& scenario, const RunOptions& options = {}) {
  return run_simulation_in_child(scenario, options).report;
}

}  // namespace fleetcast::simulator
