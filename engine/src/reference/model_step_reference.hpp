#pragma once
// The reference step: one sequence of a model_step case through every layer by composing the reference
// ops (reference.hpp, moe_reference.hpp) one token and one head at a time, in double within each op and
// fp32 between ops, as the kernels store them. Sequences are independent in a forward step (attention
// reads only the sequence's own cache; every other op works per token), so one sequence at a time is
// the whole computation, sampled.

#include <cstdint>
#include <vector>

#include "../problems/model_step_problem.hpp"

namespace fleetcast::engine::reference {

// The LM head's output (this GPU's vocabulary rows) for the last new token of sequence `b`.
std::vector<double> model_step_logits(const ModelStepProblem& p, std::int64_t b);

}  // namespace fleetcast::engine::reference
