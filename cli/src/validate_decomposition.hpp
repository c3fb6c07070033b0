#pragma once
// `fleetcast validate --decompose`: the measured and predicted latencies split by the rows that differ in one length
// only (tpot_decomposition.hpp, ttft_decomposition.hpp), printed, and their per-group medians as Markdown.
#include <string>
#include <vector>

#include "fleetcast/validation/tpot_decomposition.hpp"
#include "fleetcast/validation/ttft_decomposition.hpp"

namespace fleetcast::cli {

struct Decompositions {
  std::vector<validation::TpotDecomposition> tpot;
  std::vector<validation::TtftDecomposition> ttft;
};

Decompositions decompose(const validation::ValidationResult& result);
// Each split, then each group's medians.
void print_decompositions(const Decompositions& d);
// The per-group medians as Markdown tables, under the group table (docs/VALIDATION.md); empty for no splits.
std::string markdown_decompositions(const Decompositions& d);

}  // namespace fleetcast::cli
