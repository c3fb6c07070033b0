#pragma once
// Workload classes that replay a request trace (arrival kind "trace"): the trace read and transformed as the
// spec says, and the scenario resolved so that everything planned before the run (capacity, the split of
// num_requests, the context check) sees the lengths and the rate that will be replayed.

#include <string>

#include "fleetcast/specs/scenario.hpp"
#include "fleetcast/traces/request_trace.hpp"

namespace fleetcast::simulator {

// The class's trace, read (format detected when the spec gives none) and cut, rescaled and looped. Bad rows
// are skipped and counted by the reader; a trace with no request left in the window is an InputError naming
// the file and the window.
traces::RequestTrace load_class_trace(const specs::RequestClass& c);

// A copy of `s` in which every trace class carries its trace's lengths (empirical lists) and mean arrival rate
// (requests over the span from the first to the last arrival). A request longer than the model's context, or
// Mooncake-style block ids of another size than the workload's prefix_block_tokens, is an InputError naming the
// trace file. A scenario without trace classes comes back unchanged.
specs::ScenarioSpec resolve_trace_classes(const specs::ScenarioSpec& s);

}  // namespace fleetcast::simulator
