#include "mpi_launch.hpp"

#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

#if FLEETCAST_ENGINE_HAVE_MPI
// The C API only: OpenMPI's deprecated C++ bindings do not build warning-free under -Wextra.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace fleetcast::engine {

#if FLEETCAST_ENGINE_HAVE_MPI
namespace {

void mpi_check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// MPI counts are int: a buffer of more elements would need derived datatypes, which no plan here needs.
int mpi_count(std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error("MPI collective of " + std::to_string(count) + " elements: more than INT_MAX");
  return static_cast<int>(count);
}

class MpiRanks : public Ranks {
 public:
  MpiRanks() {
    mpi_check(MPI_Init(nullptr, nullptr), "MPI_Init");
    // Errors come back as codes (then exceptions naming the call), not as MPI's default abort.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_free(&node);
  }
  ~MpiRanks() override { MPI_Finalize(); }
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string transport() const override { return "mpi"; }

  void all_reduce_sum(const float* send, float* recv, std::size_t count) override {
    mpi_check(MPI_Allreduce(send, recv, mpi_count(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  }
  void all_gather(const float* send, float* recv, std::size_t count_each) override {
    const int c = mpi_count(count_each);
    mpi_check(MPI_Allgather(send, c, MPI_FLOAT, recv, c, MPI_FLOAT, MPI_COMM_WORLD), "MPI_Allgather");
  }
  void reduce_scatter_sum(const float* send, float* recv, std::size_t count_each) override {
    mpi_check(MPI_Reduce_scatter_block(send, recv, mpi_count(count_each), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Reduce_scatter_block");
  }
  void all_to_all(const float* send, float* recv, std::size_t count_each) override {
    const int c = mpi_count(count_each);
    mpi_check(MPI_Alltoall(send, c, MPI_FLOAT, recv, c, MPI_FLOAT, MPI_COMM_WORLD), "MPI_Alltoall");
  }
  void send_recv(const float* send, float* recv, std::size_t count, int to, int from) override {
    const int c = mpi_count(count);
    mpi_check(MPI_Sendrecv(send, c, MPI_FLOAT, to, 0, recv, c, MPI_FLOAT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
  }

  void barrier() override { mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  std::vector<double> max(const std::vector<double>& values) override {
    std::vector<double> out(values.size());
    mpi_check(MPI_Allreduce(values.data(), out.data(), mpi_count(values.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
              "MPI_Allreduce(max)");
    return out;
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    mpi_check(MPI_Bcast(data, mpi_count(bytes), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
  }
  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::exit(exit_code);  // MPI_Abort does not return; this keeps [[noreturn]] honest if it did
  }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace

std::unique_ptr<Ranks> join_mpi_launch() {
  // OpenMPI's mpirun sets OMPI_COMM_WORLD_SIZE, PMIx launchers (srun, prterun) PMIX_RANK: a plain run never
  // starts MPI (no singleton init, no runtime daemons).
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMIX_RANK") == nullptr) return nullptr;
  return std::make_unique<MpiRanks>();
}

#else

std::unique_ptr<Ranks> join_mpi_launch() { return nullptr; }

#endif

}  // namespace fleetcast::engine
