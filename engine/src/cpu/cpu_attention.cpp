// Decode attention over a paged KV cache on the CPU. One task per sequence; tokens in order, and for each
// token every kv head's key (contiguous in the cache) scored against its group of query heads with
// vectorised dot products. A decode step has one query token, so this is matrix-vector work: blocked GEMM
// calls per page would cost more than they compute, and walking one head at a time strides the cache by
// kv_heads x dk and misses the TLB at every token. Then a softmax per head, then each token's values are
// added to the outputs with their weights.

#include <vector>

#include "eigen.hpp"

#include "cpu_kernels.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstVector = Eigen::Map<const Eigen::RowVectorXf>;

void attention_decode(const PagedAttention& a) {
  const std::int64_t group = a.q_heads / a.kv_heads;
  // MLA keeps one entry per token: the value is the first dv entries of the key.
  const float* v_base = a.v_cache != nullptr ? a.v_cache : a.k_cache;
  const std::int64_t v_entry = a.v_cache != nullptr ? a.dv : a.dk;
  parallel_for(a.batch, a.context * a.kv_heads * (a.dk + a.dv), [&](std::int64_t b) {
    const Eigen::Map<const RowMajor> q(a.q + b * a.q_heads * a.dk, a.q_heads, a.dk);
    const std::int32_t* pages = a.block_table + b * a.pages_per_seq;
    // Cache entry of token t, kv head 0; the heads follow one another.
    auto entry = [&](std::int64_t t) {
      return (std::int64_t{pages[t / a.page_size]} * a.page_size + t % a.page_size) * a.kv_heads;
    };
    RowMajor scores(a.q_heads, a.context);
    for (std::int64_t t = 0; t < a.context; ++t) {
      const float* keys = a.k_cache + entry(t) * a.dk;
      for (std::int64_t h = 0; h < a.kv_heads; ++h) {
        const ConstVector key(keys + h * a.dk, a.dk);
        for (std::int64_t g = 0; g < group; ++g) scores(h * group + g, t) = q.row(h * group + g).dot(key) * a.scale;
      }
    }
    for (std::int64_t head = 0; head < a.q_heads; ++head) {
      auto row = scores.row(head).array();
      row = (row - row.maxCoeff()).exp();
      row /= row.sum();
    }
    Eigen::Map<RowMajor> out(a.out + b * a.q_heads * a.dv, a.q_heads, a.dv);
    out.setZero();
    for (std::int64_t t = 0; t < a.context; ++t) {
      const float* values = v_base + entry(t) * v_entry;
      for (std::int64_t h = 0; h < a.kv_heads; ++h) {
        const ConstVector value(values + h * v_entry, a.dv);
        for (std::int64_t g = 0; g < group; ++g) out.row(h * group + g) += scores(h * group + g, t) * value;
      }
    }
  });
}

}  // namespace fleetcast::engine::cpu
