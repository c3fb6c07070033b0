#pragma once
// The host side of a collective: each rank's input as every backend fills it (seed kSeed + rank), the
// element counts nccl-tests' sizes imply, and what each rank must hold afterwards, regenerated on the host.
//
// Sizes as nccl-tests counts them (`bytes` of the shape): all_reduce the buffer on each rank; all_gather
// the gathered total (bytes / n from each); reduce_scatter the input on each rank (bytes / n out);
// all_to_all each rank's send buffer (bytes / n to each peer); send_recv the message each rank sends to
// the next in a ring.

#include <cstdint>
#include <string>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/fill.hpp"
#include "fleetcast/engine/shape.hpp"

namespace fleetcast::engine {

struct CollectiveProblem {
  static constexpr std::uint64_t kSeed = 901;  // rank r's input is seed kSeed + r

  CollectiveProblem(const Shape& shape, std::string op_name, Storage storage);

  std::string op;
  Storage storage;
  int ranks;                // `gpus` of the shape
  std::int64_t elem_bytes;  // 2 (bf16) or 4 (fp32)
  std::int64_t send_count;  // elements each rank sends
  std::int64_t recv_count;  // elements each rank receives
  std::int64_t chunk;       // all_to_all: elements to each peer

  bool sums() const { return op == "all_reduce" || op == "reduce_scatter"; }
  // For the Comparison: 0 for moved data (bit for bit); for sums fp32's (the order differs from the
  // reference's), bf16's times max(1, n / 4) (a ring rounds at each of its n - 1 steps).
  double tolerance() const;
  // Element i of rank `rank`'s input, as stored.
  double input(int rank, std::int64_t i) const;
  // Element i of rank `rank`'s output.
  double expected(int rank, std::int64_t i) const;
  // Rank `rank`'s output against expected(): sums within the Comparison's tolerance, moved data bit for
  // bit; on a sample of 4096 elements unless `full`. Adds to `cmp` (flat index rank * recv_count + i).
  void compare(int rank, const ReadRange& got, bool full, Comparison& cmp) const;
};

}  // namespace fleetcast::engine
