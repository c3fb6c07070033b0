// Causal prefill attention over a paged KV cache on the CPU, flash-attention style: for each sequence,
// kv head and block of kBlockQ query positions (all query heads of the kv head's group together, so
// each gathered key block serves the whole group), key blocks of kBlockK tokens are gathered from their
// pages into contiguous tiles, scored with one blocked GEMM, masked on the diagonal block, and folded
// into the output with an online softmax (running maximum and denominator per query row). Key blocks
// wholly after a query block's last position are never read: the causal triangle costs half a square.

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu_kernels.hpp"
#include "eigen.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr std::int64_t kBlockQ = 32, kBlockK = 64;

}  // namespace

void attention_prefill(const PagedPrefill& a) {
  const std::int64_t group = a.q_heads / a.kv_heads, d = a.head_dim;
  const std::int64_t q_blocks = (a.chunk + kBlockQ - 1) / kBlockQ;
  const std::int64_t tasks = a.batch * a.kv_heads * q_blocks;
  const std::int64_t work = kBlockQ * group * (a.context + a.chunk) * d;
  parallel_for(tasks, work, [&](std::int64_t task) {
    const std::int64_t qb = task % q_blocks, h = task / q_blocks % a.kv_heads, b = task / q_blocks / a.kv_heads;
    const std::int64_t first = qb * kBlockQ, rows_q = std::min(kBlockQ, a.chunk - first);
    const std::int64_t rows = rows_q * group;  // row r: query position first + r / group, head h * group + r % group
    RowMajor q(rows, d), out = RowMajor::Zero(rows, d), k(kBlockK, d), v(kBlockK, d), s(rows, kBlockK);
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = first + r / group, head = h * group + r % group;
      q.row(r) = Eigen::Map<const Eigen::RowVectorXf>(a.q + ((b * a.chunk + i) * a.q_heads + head) * d, d) * a.scale;
    }
    Eigen::VectorXf row_max = Eigen::VectorXf::Constant(rows, -std::numeric_limits<float>::infinity());
    Eigen::VectorXf row_sum = Eigen::VectorXf::Zero(rows);
    const std::int32_t* pages = a.block_table + b * a.pages_per_seq;
    const std::int64_t last_key = a.context + first + rows_q - 1;  // the block's last query sees this far
    for (std::int64_t k0 = 0; k0 <= last_key; k0 += kBlockK) {
      const std::int64_t n = std::min(kBlockK, last_key + 1 - k0);
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t t = k0 + j;
        const std::int64_t at =
            ((std::int64_t{pages[t / a.page_size]} * a.page_size + t % a.page_size) * a.kv_heads + h) * d;
        k.row(j) = Eigen::Map<const Eigen::RowVectorXf>(a.k_cache + at, d);
        v.row(j) = Eigen::Map<const Eigen::RowVectorXf>(a.v_cache + at, d);
      }
      auto scores = s.leftCols(n);
      scores.noalias() = q * k.topRows(n).transpose();
      for (std::int64_t r = 0; r < rows; ++r) {
        // Query position context + i sees keys up to itself: mask the rest of this block.
        const std::int64_t visible = a.context + first + r / group - k0 + 1;
        for (std::int64_t j = std::max<std::int64_t>(visible, 0); j < n; ++j)
          scores(r, j) = -std::numeric_limits<float>::infinity();
        const float block_max = scores.row(r).maxCoeff();
        if (block_max == -std::numeric_limits<float>::infinity()) {  // all after this query: adds nothing
          scores.row(r).setZero();
          continue;
        }
        const float new_max = std::max(row_max(r), block_max);
        const float rescale = std::exp(row_max(r) - new_max);  // 0 on the first visible block
        scores.row(r) = (scores.row(r).array() - new_max).exp().matrix();
        row_sum(r) = row_sum(r) * rescale + scores.row(r).sum();
        out.row(r) *= rescale;
        row_max(r) = new_max;
      }
      out.noalias() += scores * v.topRows(n);
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = first + r / group, head = h * group + r % group;
      Eigen::Map<Eigen::RowVectorXf>(a.out + ((b * a.chunk + i) * a.q_heads + head) * d, d) = out.row(r) / row_sum(r);
    }
  });
}

}  // namespace fleetcast::engine::cpu
