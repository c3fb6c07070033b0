#pragma once
// The CPU reference: the most straightforward code for each op, in double precision, one output unit
// (an element, a row, a head) at a time so a large case can be checked on a sample. Nothing here is fast
// on purpose; the CPU backend's kernels in src/cpu/ are the ones that are timed, and they must not share
// code with these.

#include <cstdint>
#include <functional>
#include <vector>

namespace fleetcast::engine::reference {

// sum_i a[i] * b[i]
double dot(const float* a, const float* b, std::int64_t n);

// x / sqrt(mean(x^2) + eps) * w
std::vector<double> rmsnorm_row(const float* x, const float* w, std::int64_t hidden, double eps);

// silu(gate[i]) * up[i], silu(g) = g / (1 + exp(-g))
std::vector<double> swiglu_row(const float* gate, const float* up, std::int64_t width);

// NeoX rotary embedding of one head vector: pairs (i, i + d/2) rotate by the angle whose cosine and sine
// are cos_sin[i] and cos_sin[d/2 + i].
std::vector<double> rope_head(const float* x, const float* cos_sin, std::int64_t head_dim);

struct Sample {
  std::int64_t token = -1;
  double prob = 0.0;  // the token's probability under the softmax over the whole vocabulary
};
// Sort the vocabulary by logit (ties: lower id first); top_k == 1 takes the first, otherwise the draw
// `u` in [0, 1) picks among the first top_k by their probabilities renormalised to sum to one.
Sample sample_row(const float* logits, std::int64_t vocab, std::int64_t top_k, double u);

// One query head over `context` cached tokens: softmax(q . k_t * scale) weighted sum of v_t.
// k(t) and v(t) return the cached key and value of token t.
std::vector<double> attention_head(const float* q, std::int64_t dk, std::int64_t dv, std::int64_t context,
                                   const std::function<const float*(std::int64_t)>& k,
                                   const std::function<const float*(std::int64_t)>& v, double scale);

}  // namespace fleetcast::engine::reference
