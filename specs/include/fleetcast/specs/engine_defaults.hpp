#pragma once
// The scheduler a serving engine runs on a GPU when its launcher sets none: the policy, batch cap, step token budget
// and chunk of the engine's own server for that GPU's memory (docs/SPECS.md, scheduler). A deployment that leaves
// its scheduler out gets exactly this; the planner searches it and the benchmark-file mapping assumes it.

#include <string>

#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::specs {

// `runtime`: vllm, sglang, trtllm, deepinfer or atom; `hardware`: a hardware preset's name (throws an InputError
// naming the presets for another).
SchedulerSpec engine_scheduler_defaults(const std::string& runtime, const std::string& hardware);

}  // namespace fleetcast::specs
