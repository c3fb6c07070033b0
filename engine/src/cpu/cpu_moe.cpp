// MoE on the CPU. Routing is a partial sort of each token's scores (top_k is small against the experts);
// permute is a counting sort of the token slots by expert then a parallel row gather; the grouped GEMM is
// one Eigen GEMM per expert with rows, as a grouped kernel would run one tile loop per expert.

#include "cpu_moe.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "cpu_kernels.hpp"
#include "parallel.hpp"

namespace fleetcast::engine::cpu {

void moe_routing(const float* logits, std::int32_t* ids, float* weights, std::int64_t tokens, const MoeRouting& r) {
  parallel_for(tokens, r.experts * 8, [&](std::int64_t t) {
    const float* l = logits + t * r.experts;
    std::vector<float> score(static_cast<std::size_t>(r.experts));
    if (r.sigmoid) {
      for (std::int64_t e = 0; e < r.experts; ++e) score[e] = 1.0f / (1.0f + std::exp(-l[e]));
    } else {
      const float m = *std::max_element(l, l + r.experts);
      float sum = 0.0f;
      for (std::int64_t e = 0; e < r.experts; ++e) sum += score[e] = std::exp(l[e] - m);
      const float inv = 1.0f / sum;
      for (auto& s : score) s *= inv;
    }
    // Greater score first, the lower index on a tie: a strict total order, so partial_sort is exact.
    auto better = [](const std::pair<float, std::int32_t>& a, const std::pair<float, std::int32_t>& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    };
    std::vector<std::pair<float, std::int32_t>> candidates;
    candidates.reserve(static_cast<std::size_t>(r.experts));
    if (r.n_group > 1) {
      const std::int64_t size = r.experts / r.n_group;
      std::vector<std::pair<float, std::int32_t>> groups;
      for (std::int64_t g = 0; g < r.n_group; ++g) {
        float best = -INFINITY, second = -INFINITY;
        for (std::int64_t e = g * size; e < (g + 1) * size; ++e) {
          if (score[e] > best) {
            second = best;
            best = score[e];
          } else if (score[e] > second) {
            second = score[e];
          }
        }
        groups.emplace_back(r.sigmoid ? best + (size > 1 ? second : 0.0f) : best, static_cast<std::int32_t>(g));
      }
      std::partial_sort(groups.begin(), groups.begin() + r.topk_group, groups.end(), better);
      for (std::int64_t i = 0; i < r.topk_group; ++i)
        for (std::int64_t e = groups[i].second * size; e < (groups[i].second + 1) * size; ++e)
          candidates.emplace_back(score[e], static_cast<std::int32_t>(e));
    } else {
      for (std::int64_t e = 0; e < r.experts; ++e) candidates.emplace_back(score[e], static_cast<std::int32_t>(e));
    }
    std::partial_sort(candidates.begin(), candidates.begin() + r.top_k, candidates.end(), better);
    float sum = 0.0f;
    for (std::int64_t i = 0; i < r.top_k; ++i) sum += candidates[i].first;
    for (std::int64_t i = 0; i < r.top_k; ++i) {
      ids[t * r.top_k + i] = candidates[i].second;
      weights[t * r.top_k + i] = candidates[i].first / sum;
    }
  });
}

std::int64_t moe_permute(const float* x, const std::int32_t* ids, float* permuted, std::int32_t* offsets,
                         std::int32_t* source_slot, std::int32_t* dest_row, std::int64_t tokens, std::int64_t hidden,
                         std::int64_t top_k, std::int64_t first_expert, std::int64_t local_experts) {
  const std::int64_t slots = tokens * top_k;
  std::fill(offsets, offsets + local_experts + 1, 0);
  for (std::int64_t s = 0; s < slots; ++s) {
    const std::int64_t e = ids[s] - first_expert;
    if (e >= 0 && e < local_experts) ++offsets[e + 1];
  }
  for (std::int64_t e = 0; e < local_experts; ++e) offsets[e + 1] += offsets[e];
  std::vector<std::int32_t> next(offsets, offsets + local_experts);
  for (std::int64_t s = 0; s < slots; ++s) {
    const std::int64_t e = ids[s] - first_expert;
    if (e >= 0 && e < local_experts) {
      const std::int32_t row = next[e]++;
      source_slot[row] = static_cast<std::int32_t>(s);
      dest_row[s] = row;
    } else {
      dest_row[s] = -1;
    }
  }
  const std::int64_t rows = offsets[local_experts];
  parallel_for(rows, hidden, [&](std::int64_t row) {
    std::memcpy(permuted + row * hidden, x + (source_slot[row] / top_k) * hidden,
                static_cast<std::size_t>(hidden) * sizeof(float));
  });
  return rows;
}

void moe_unpermute(const float* expert_out, const float* weights, const std::int32_t* dest_row, float* y,
                   std::int64_t tokens, std::int64_t hidden, std::int64_t top_k) {
  parallel_for(tokens, hidden * top_k, [&](std::int64_t t) {
    float* out = y + t * hidden;
    std::fill(out, out + hidden, 0.0f);
    for (std::int64_t s = 0; s < top_k; ++s) {
      const std::int32_t row = dest_row[t * top_k + s];
      if (row < 0) continue;
      const float w = weights[t * top_k + s];
      const float* in = expert_out + std::int64_t{row} * hidden;
      for (std::int64_t i = 0; i < hidden; ++i) out[i] += w * in[i];
    }
  });
}

void moe_grouped_gemm(const float* x, const float* w, const std::int32_t* offsets, float* y, std::int64_t experts,
                      std::int64_t n, std::int64_t k) {
  for (std::int64_t e = 0; e < experts; ++e) {
    const std::int64_t rows = offsets[e + 1] - offsets[e];
    if (rows > 0) gemm(x + std::int64_t{offsets[e]} * k, w + e * n * k, y + std::int64_t{offsets[e]} * n, rows, n, k);
  }
}

}  // namespace fleetcast::engine::cpu
