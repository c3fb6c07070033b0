// Sampling on the CPU: one pass for the maximum, one vectorised pass for the softmax denominator, one pass
// keeping the top k in a heap; then a draw among the k.

#include <algorithm>
#include <cmath>
#include <vector>

#include "eigen.hpp"

#include "cpu_kernels.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {
namespace {

struct Candidate {
  float logit;
  std::int32_t id;
};

// Ranks higher logits first and, between equal logits, lower ids first.
bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

}  // namespace

void sampling(const float* logits, const float* draws, std::int32_t* tokens, float* probs, std::int64_t batch,
              std::int64_t vocab, std::int64_t top_k) {
  parallel_for(batch, vocab, [&](std::int64_t b) {
    const float* row = logits + b * vocab;
    const Eigen::Map<const Eigen::ArrayXf> x(row, vocab);
    const float max_logit = x.maxCoeff();
    const double total = static_cast<double>((x - max_logit).exp().sum());
    std::int32_t chosen = 0;
    if (top_k == 1) {
      for (std::int64_t i = 0; i < vocab; ++i)
        if (row[i] == max_logit) {
          chosen = static_cast<std::int32_t>(i);
          break;
        }
    } else {
      // A heap whose top is the weakest of the best k so far.
      std::vector<Candidate> heap;
      heap.reserve(static_cast<std::size_t>(top_k));
      for (std::int64_t i = 0; i < vocab; ++i) {
        const Candidate c{row[i], static_cast<std::int32_t>(i)};
        if (static_cast<std::int64_t>(heap.size()) < top_k) {
          heap.push_back(c);
          std::push_heap(heap.begin(), heap.end(), ranks_before);
        } else if (ranks_before(c, heap.front())) {
          std::pop_heap(heap.begin(), heap.end(), ranks_before);
          heap.back() = c;
          std::push_heap(heap.begin(), heap.end(), ranks_before);
        }
      }
      std::sort_heap(heap.begin(), heap.end(), ranks_before);  // best first
      std::vector<double> weights(heap.size());
      double top_total = 0.0;
      for (std::size_t i = 0; i < heap.size(); ++i) {
        weights[i] = std::exp(double{heap[i].logit} - max_logit);
        top_total += weights[i];
      }
      double cumulative = 0.0;
      for (std::size_t i = 0; i < heap.size(); ++i) {
        cumulative += weights[i] / top_total;
        chosen = heap[i].id;
        if (draws[b] < cumulative) break;
      }
    }
    tokens[b] = chosen;
    probs[b] = static_cast<float>(std::exp(double{row[chosen]} - max_logit) / total);
  });
}

}  // namespace fleetcast::engine::cpu
