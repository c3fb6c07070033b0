#pragma once
// The host side of a sampling case: logits [batch, vocab] and one uniform draw per row in; per row the
// chosen token and its probability out. Ties between equal logits go to the lower token id on every
// backend, so the chosen token is exact and is compared exactly.

#include <cstdint>
#include <string>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/engine/shape.hpp"
#include "tensor_init.hpp"

namespace fleetcast::engine {

struct SamplingProblem {
  SamplingProblem(const Shape& shape, Storage storage);
  std::int64_t batch, vocab, top_k;
  Storage storage;
  TensorInit logits;         // [batch, vocab], in [-8, 8): a softmax with a few dominant tokens
  std::vector<float> draws;  // [batch], uniform in [0, 1)
  CheckResult check(const ReadRange& tokens, const ReadRange& probs, const std::string& what, double tolerance,
                    bool full) const;
};

}  // namespace fleetcast::engine
