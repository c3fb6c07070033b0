#pragma once
// One serving simulation of a scenario, start to report. SimGrid keeps one engine per process: call
// simulate() at most once per process, or simulate_in_child() as often as needed.

#include <nlohmann/json.hpp>

#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::simulator {

struct RunOptions {
  bool progress_json = false;  // one JSON object per line on stderr: phase, done, total
  std::string file;            // the scenario's file, for error messages
};

// Throws InputError for a deployment the model does not fit on; returns the report (see report.hpp).
nlohmann::json simulate(const specs::ScenarioSpec& scenario, const RunOptions& options = {});

// Runs simulate() in a forked child and returns its report; an error in the child is rethrown here
// (InputError as InputError, anything else as std::runtime_error).
nlohmann::json simulate_in_child(const specs::ScenarioSpec& scenario, const RunOptions& options = {});

}  // namespace fleetcast::simulator
