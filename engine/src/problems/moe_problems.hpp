#pragma once
// The host side of the MoE ops: inputs as every backend fills them, the token-per-expert distributions of
// the grouped GEMM, and checks against the reference (src/reference/moe_reference.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/shape.hpp"
#include "tensor_init.hpp"

namespace fleetcast::engine {

// Routing: logits [tokens, experts] in; ids [tokens, top_k] (compared exactly) and weights out.
struct MoeRoutingProblem {
  MoeRoutingProblem(const Shape& shape, Storage storage);
  std::int64_t tokens, experts, top_k, n_group, topk_group;
  bool sigmoid;
  Storage storage;
  TensorInit logits;  // in [-4, 4): softmaxes with a few clear winners and many near ties below
  CheckResult check(const ReadRange& ids, const ReadRange& weights, const std::string& what, double tolerance,
                    bool full) const;
};

// top_k distinct experts per token from a seeded hash: the routing permute and unpermute are given.
std::vector<std::int32_t> seeded_expert_ids(std::uint64_t seed, std::int64_t tokens, std::int64_t top_k,
                                            std::int64_t experts);

// Permute: x [tokens, hidden] and ids in; permuted [tokens * top_k, hidden], offsets [experts + 1],
// source_slot [tokens * top_k] out, all compared exactly (a permutation copies).
struct MoePermuteProblem {
  MoePermuteProblem(const Shape& shape, Storage storage);
  std::int64_t tokens, hidden, experts, top_k;
  Storage storage;
  TensorInit x;
  std::vector<std::int32_t> ids;  // [tokens, top_k]
  CheckResult check(const ReadRange& permuted, const ReadRange& offsets, const ReadRange& source_slot,
                    const std::string& what, bool full) const;
};

// Unpermute: expert_out [tokens * top_k, hidden] in the expert order of `ids`, weights [tokens, top_k] and
// dest_row (each slot's row) in; y [tokens, hidden] = the weighted sum of each token's rows.
struct MoeUnpermuteProblem {
  MoeUnpermuteProblem(const Shape& shape, Storage storage);
  std::int64_t tokens, hidden, experts, top_k;
  Storage storage;
  TensorInit expert_out, weights;
  std::vector<std::int32_t> dest_row;  // [tokens * top_k]
  CheckResult check(const ReadRange& y, const std::string& what, double tolerance, bool full) const;
};

// Rows per expert: `zipf_milli` 0 is balanced (rows / experts each, the remainder one each to the first
// experts); otherwise each row draws its expert from a power law P(rank r) ~ (r + 1)^(-zipf_milli / 1000)
// over a seeded ranking of the experts, with seeded draws: a few hot experts and a long tail, some empty.
std::vector<std::int64_t> expert_row_counts(std::int64_t rows, std::int64_t experts, std::int64_t zipf_milli,
                                            std::int64_t seed);

// Grouped GEMM: x [rows, k] sorted by expert, w [experts, n, k], rows per expert from the distribution
// (or given); y [rows, n].
struct MoeGroupedGemmProblem {
  MoeGroupedGemmProblem(const Shape& shape, Storage storage);
  MoeGroupedGemmProblem(std::int64_t n, std::int64_t k, std::vector<std::int64_t> counts, Storage storage);
  std::int64_t rows, experts, n, k;
  Storage storage;
  std::vector<std::int32_t> offsets;  // [experts + 1]
  TensorInit x, w;
  CheckResult check(const ReadRange& y, const std::string& what, double tolerance, bool full) const;
};

}  // namespace fleetcast::engine
