#include "mpi_ranks.hpp"

#include <cstdlib>

#ifdef FLEETCAST_HAVE_MPI
// The C API only: OpenMPI's deprecated C++ bindings do not build warning-free under -Wextra.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace fleetcast::cli {

MpiRanks::MpiRanks() {
#ifdef FLEETCAST_HAVE_MPI
  // OpenMPI's mpirun sets OMPI_COMM_WORLD_SIZE, PMIx launchers PMIX_RANK: a plain `fleetcast sweep` never starts
  // MPI (no singleton init, no runtime daemons).
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMIX_RANK") == nullptr) return;
  MPI_Init(nullptr, nullptr);
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#endif
}

MpiRanks::~MpiRanks() {
#ifdef FLEETCAST_HAVE_MPI
  if (initialised_) MPI_Finalize();
#endif
}

void MpiRanks::barrier() const {
#ifdef FLEETCAST_HAVE_MPI
  if (initialised_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

int MpiRanks::sum(int value) const {
  int total = value;
#ifdef FLEETCAST_HAVE_MPI
  if (initialised_) MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
  return total;
}

}  // namespace fleetcast::cli
