#pragma once
// The ranks of an `mpirun -np N fleetcast sweep ...` launch. MPI is initialised only when fleetcast was built with
// MPI (OpenMPI found at configure time: FLEETCAST_HAVE_MPI) and the process was started by mpirun (its environment
// names a world size); otherwise this is rank 0 of 1 and every call is a no-op.

namespace fleetcast::cli {

class MpiRanks {
 public:
  MpiRanks();
  ~MpiRanks();  // MPI_Finalize when initialised here
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier() const;
  int sum(int value) const;  // over all ranks, every rank gets the total

 private:
  bool initialised_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace fleetcast::cli
