#pragma once
// The processes of an MPI launch (`mpirun -np N fleetcast-engine run ...`), as the backends see them: who
// this process is, the collectives the CPU backend measures between the ranks (fp32 host buffers), and what
// the harness needs to keep the ranks in step (a barrier, the max of each rank's timings, a broadcast for
// NCCL's bootstrap id). The engine library itself does not link MPI: engine/mpi/ implements this over
// MPI where CMake found it, so a build without MPI is unchanged.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "fleetcast/engine/check.hpp"

namespace fleetcast::engine {

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;         // among the ranks on this node: picks the GPU
  virtual std::string transport() const = 0;  // what moves the CPU backend's data: "mpi"

  // Sum all-reduce of `count` floats from every rank.
  virtual void all_reduce_sum(const float* send, float* recv, std::size_t count) = 0;
  // Every rank's `count_each` floats, in rank order, to every rank.
  virtual void all_gather(const float* send, float* recv, std::size_t count_each) = 0;
  // The sum over ranks of each rank's `size() * count_each` floats; rank r keeps block r.
  virtual void reduce_scatter_sum(const float* send, float* recv, std::size_t count_each) = 0;
  // Block p of `send` (count_each floats) to rank p; block p of `recv` from rank p (EP dispatch).
  virtual void all_to_all(const float* send, float* recv, std::size_t count_each) = 0;
  // `count` floats to rank `to` while receiving as many from rank `from`.
  virtual void send_recv(const float* send, float* recv, std::size_t count, int to, int from) = 0;

  virtual void barrier() = 0;
  // Element-wise maximum over the ranks; every rank gets it.
  virtual std::vector<double> max(const std::vector<double>& values) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  // Ends every rank of the launch with `exit_code`: one rank's error must not leave the others waiting.
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

// True when `ranks` spans more than one process: the collectives run between them.
inline bool multi_rank(const Ranks* ranks) { return ranks != nullptr && ranks->size() > 1; }

// Runs `check` on every rank and agrees on the outcome: a rank whose check fails throws its CheckFailed,
// the others one naming the failing rank, so that no rank goes on to a collective its peers never join.
// The result has the largest error over the ranks.
CheckResult check_on_every_rank(Ranks& ranks, const std::function<CheckResult()>& check);

}  // namespace fleetcast::engine
