#include "prefill_problem.hpp"

#include <cmath>
#include <numeric>

#include "../reference/reference.hpp"

namespace fleetcast::engine {

PrefillProblem::PrefillProblem(const Shape& shape, Storage s)
    : batch(shape.at("batch")),
      chunk(shape.at("chunk")),
      context(shape.at("context")),
      q_heads(shape.at("q_heads")),
      kv_heads(shape.at("kv_heads")),
      head_dim(shape.at("head_dim")),
      page_size(shape.at("page_size")),
      storage(s) {
  keys = context + chunk;
  pages_per_seq = (keys + page_size - 1) / page_size;
  num_pages = batch * pages_per_seq;
  scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  q = {801, static_cast<std::size_t>(batch * chunk * q_heads * head_dim)};
  k_cache = {802, static_cast<std::size_t>(num_pages * page_size * kv_heads * head_dim)};
  v_cache = {803, static_cast<std::size_t>(num_pages * page_size * kv_heads * head_dim)};
  block_table.resize(static_cast<std::size_t>(num_pages));
  std::iota(block_table.begin(), block_table.end(), 0);
  for (std::int64_t i = num_pages - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(mix64(804 + static_cast<std::uint64_t>(i)) % (i + 1));
    std::swap(block_table[i], block_table[j]);
  }
}

std::int64_t PrefillProblem::cache_offset(std::int64_t b, std::int64_t t, std::int64_t h) const {
  const std::int64_t page = block_table[b * pages_per_seq + t / page_size];
  return ((page * page_size + t % page_size) * kv_heads + h) * head_dim;
}

CheckResult PrefillProblem::check(const ReadRange& out, const std::string& what, double tolerance, bool full) const {
  Comparison cmp(what, tolerance);
  const std::int64_t group = q_heads / kv_heads;
  const auto d = static_cast<std::size_t>(head_dim);
  for (const auto b : sample_indices(batch, 2, full)) {
    const auto queries = sample_indices(chunk, 8, full);
    for (std::int64_t h = 0; h < kv_heads; ++h) {
      std::vector<std::vector<float>> k_rows, v_rows;
      for (std::int64_t t = 0; t < keys; ++t) {
        k_rows.push_back(k_cache.values(storage, static_cast<std::size_t>(cache_offset(b, t, h)), d));
        v_rows.push_back(v_cache.values(storage, static_cast<std::size_t>(cache_offset(b, t, h)), d));
      }
      auto key = [&](std::int64_t t) { return k_rows[t].data(); };
      auto value = [&](std::int64_t t) { return v_rows[t].data(); };
      for (const auto i : queries) {
        for (std::int64_t g = 0; g < group; ++g) {
          const std::int64_t head = h * group + g;
          const auto offset = static_cast<std::size_t>(((b * chunk + i) * q_heads + head) * head_dim);
          const auto qv = q.values(storage, offset, d);
          // Causal: query i of the chunk sees the context and the chunk up to itself.
          const auto expected =
              reference::attention_head(qv.data(), head_dim, head_dim, context + i + 1, key, value, scale);
          const auto got = out(offset, d);
          for (std::size_t x = 0; x < d; ++x) cmp.add(got[x], expected[x], offset + x);
        }
      }
    }
  }
  return cmp.finish();
}

}  // namespace fleetcast::engine
