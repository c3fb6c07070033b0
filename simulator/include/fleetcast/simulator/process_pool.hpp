#pragma once
// Runs independent jobs each in its own forked child process, `parallel` at a time. SimGrid keeps one engine
// per process, so every simulation of a batch needs a process of its own; a crash in one job (a signal, an
// exception) is that job's failure, never the caller's.

#include <cstddef>
#include <functional>
#include <string>

namespace fleetcast::simulator {

struct ChildOutcome {
  bool ok = false;     // the child ran the job to the end and exited 0
  std::string output;  // what the job returned (ok), or why it failed
};

// Calls job(i) in a child for i in [0, count) and done(i, outcome) in the parent as each child finishes (in
// completion order, one at a time). `parallel` < 1 counts as 1.
void run_in_child_processes(std::size_t count, int parallel, const std::function<std::string(std::size_t)>& job,
                            const std::function<void(std::size_t, const ChildOutcome&)>& done);

}  // namespace fleetcast::simulator
