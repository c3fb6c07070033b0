#pragma once
// The fleetcast-engine command line: usage text, argument parsing, the run command.

#include <memory>
#include <string>

#include "fleetcast/engine/backend.hpp"
#include "fleetcast/engine/ranks.hpp"

namespace fleetcast::engine::cli {

std::string usage();
// `ranks`: the MPI launch this process is part of, or nullptr (one process).
int dispatch(int argc, char** argv, Ranks* ranks);

// "cpu" or "cuda"; throws HardwareAbsent where the build or the machine has no such device, InputError for
// an unknown name. Under an MPI launch (`ranks` spanning several processes) the backend measures the
// collectives between the ranks; the CUDA backend takes the GPU of the rank's local index.
std::unique_ptr<Backend> make_backend(const std::string& name, Ranks* ranks);

}  // namespace fleetcast::engine::cli
