#pragma once
// Joining an MPI launch (`mpirun -np N fleetcast-engine run ...`). MPI is initialised only when this build
// has MPI (OpenMPI found at configure time: FLEETCAST_ENGINE_HAVE_MPI) and the process was started by an
// MPI launcher (its environment names a world size); otherwise there is no launch to join.

#include <memory>

#include "fleetcast/engine/ranks.hpp"

namespace fleetcast::engine {

// The launch's ranks, MPI_Finalize at destruction; nullptr outside a launch or in a build without MPI.
std::unique_ptr<Ranks> join_mpi_launch();

}  // namespace fleetcast::engine
