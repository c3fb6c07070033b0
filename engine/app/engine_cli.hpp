#pragma once
// The fleetcast-engine command line: usage text, argument parsing, the run command.

#include <memory>
#include <string>

#include "fleetcast/engine/backend.hpp"

namespace fleetcast::engine::cli {

std::string usage();
int dispatch(int argc, char** argv);

// "cpu" or "cuda"; throws HardwareAbsent where the build or the machine has no such device, InputError for
// an unknown name.
std::unique_ptr<Backend> make_backend(const std::string& name);

}  // namespace fleetcast::engine::cli
