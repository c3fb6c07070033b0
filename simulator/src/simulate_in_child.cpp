// A simulation in a forked child (process_pool.hpp): SimGrid's engine is a per-process singleton whose clock
// would silently carry over into a second simulation in the same process.
#include <stdexcept>
#include <string>

#include "fleetcast/simulator/process_pool.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::simulator {

SimulationResult run_simulation_in_child(const specs::ScenarioSpec& scenario, const RunOptions& options) {
  ChildOutcome outcome;
  run_in_child_processes(
      1, 1,
      [&](std::size_t) {
        nlohmann::json reply;
        try {
          SimulationResult result = run_simulation(scenario, options);
          reply = {{"report", std::move(result.report)}, {"chrome_trace", std::move(result.chrome_trace)}};
        } catch (const InputError& e) {
          reply = {{"input_error", {e.file(), e.field(), e.value(), e.problem()}}};
        } catch (const std::exception& e) {
          reply = {{"error", e.what()}};
        }
        return reply.dump();
      },
      [&](std::size_t, const ChildOutcome& o) { outcome = o; });
  if (!outcome.ok || outcome.output.empty()) {
    throw std::runtime_error("simulation child process died (" + outcome.output + ")");
  }
  const auto reply = nlohmann::json::parse(outcome.output);
  if (reply.contains("input_error")) {
    const auto& e = reply["input_error"];
    throw InputError(e[0].get<std::string>(), e[1].get<std::string>(), e[2].get<std::string>(),
                     e[3].get<std::string>());
  }
  if (reply.contains("error")) throw std::runtime_error(reply["error"].get<std::string>());
  return {reply["report"], reply["chrome_trace"].get<std::string>()};
}

}  // namespace fleetcast::simulator
