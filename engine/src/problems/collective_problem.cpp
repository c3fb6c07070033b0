#include "collective_problem.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace fleetcast::engine {

CollectiveProblem::CollectiveProblem(const Shape& shape, std::string op_name, Storage s)
    : op(std::move(op_name)),
      storage(s),
      ranks(static_cast<int>(shape.at("gpus"))),
      elem_bytes(s == Storage::bf16 ? 2 : 4) {
  const std::int64_t count = shape.at("bytes") / elem_bytes;
  send_count = op == "all_gather" ? count / ranks : count;
  recv_count = op == "reduce_scatter" ? count / ranks : count;
  chunk = send_count / ranks;
}

double CollectiveProblem::tolerance() const {
  if (!sums()) return 0.0;
  return storage == Storage::bf16 ? tolerance_for("bf16") * std::max(1.0, ranks / 4.0) : tolerance_for("fp32");
}

double CollectiveProblem::input(int rank, std::int64_t i) const {
  return static_cast<double>(
      stored_value(storage, kSeed + static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(i), 1.0f, 0.0f));
}

double CollectiveProblem::expected(int rank, std::int64_t i) const {
  double sum = 0.0;
  if (op == "all_reduce") {
    for (int q = 0; q < ranks; ++q) sum += input(q, i);
    return sum;
  }
  if (op == "reduce_scatter") {
    for (int q = 0; q < ranks; ++q) sum += input(q, rank * recv_count + i);
    return sum;
  }
  if (op == "all_gather") return input(static_cast<int>(i / send_count), i % send_count);
  if (op == "all_to_all") return input(static_cast<int>(i / chunk), rank * chunk + i % chunk);  // peer p's for me
  return input((rank + ranks - 1) % ranks, i);  // send_recv: from the previous rank in the ring
}

void CollectiveProblem::compare(int rank, const ReadRange& got, bool full, Comparison& cmp) const {
  // Read once whole when small or checked in full; element by element for a sample of a large one.
  const bool whole = full || recv_count <= (std::int64_t{1} << 22);
  const std::vector<float> all = whole ? got(0, static_cast<std::size_t>(recv_count)) : std::vector<float>{};
  for (const auto i : sample_indices(recv_count, 4096, full)) {
    const double value = whole ? all[static_cast<std::size_t>(i)] : got(static_cast<std::size_t>(i), 1).front();
    const auto where = static_cast<std::size_t>(rank * recv_count + i);
    if (sums()) {
      cmp.add(value, expected(rank, i), where);
    } else {
      cmp.add_exact(value, expected(rank, i), where);  // moved, not computed: bit for bit
    }
  }
}

}  // namespace fleetcast::engine
