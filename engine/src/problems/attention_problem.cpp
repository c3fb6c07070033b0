#include "attention_problem.hpp"

#include <cmath>
#include <numeric>

#include "../reference/reference.hpp"

namespace fleetcast::engine {

AttentionProblem::AttentionProblem(const Shape& shape, bool is_mla, Storage s)
    : mla(is_mla),
      batch(shape.at("batch")),
      context(shape.at("context")),
      q_heads(shape.at("q_heads")),
      kv_heads(is_mla ? 1 : shape.at("kv_heads")),
      dk(is_mla ? shape.at("latent_dim") + shape.at("rope_dim") : shape.at("head_dim")),
      dv(is_mla ? shape.at("latent_dim") : shape.at("head_dim")),
      page_size(shape.at("page_size")),
      storage(s),
      q_storage(s == Storage::fp8_e4m3 ? Storage::bf16 : s),
      kv_storage(s) {
  pages_per_seq = (context + page_size - 1) / page_size;
  num_pages = batch * pages_per_seq;
  scale = 1.0 / std::sqrt(static_cast<double>(dk));
  q = {601, static_cast<std::size_t>(batch * q_heads * dk)};
  k_cache = {602, static_cast<std::size_t>(num_pages * page_size * kv_heads * dk)};
  v_cache = {603, mla ? 0 : static_cast<std::size_t>(num_pages * page_size * kv_heads * dv)};
  // Fisher-Yates with the same hash as the data: the same table on every backend and every run.
  block_table.resize(static_cast<std::size_t>(num_pages));
  std::iota(block_table.begin(), block_table.end(), 0);
  for (std::int64_t i = num_pages - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(mix64(604 + static_cast<std::uint64_t>(i)) % (i + 1));
    std::swap(block_table[i], block_table[j]);
  }
}

std::int64_t AttentionProblem::k_offset(std::int64_t b, std::int64_t t, std::int64_t h) const {
  const std::int64_t page = block_table[b * pages_per_seq + t / page_size];
  return ((page * page_size + t % page_size) * kv_heads + h) * dk;
}

std::int64_t AttentionProblem::v_offset(std::int64_t b, std::int64_t t, std::int64_t h) const {
  if (mla) return k_offset(b, t, h);  // the latent part of the same entry
  const std::int64_t page = block_table[b * pages_per_seq + t / page_size];
  return ((page * page_size + t % page_size) * kv_heads + h) * dv;
}

CheckResult AttentionProblem::check(const ReadRange& out, const std::string& what, double tolerance,
                                    bool full) const {
  Comparison cmp(what, tolerance);
  const std::int64_t group = q_heads / kv_heads;
  for (const auto b : sample_indices(batch, 4, full)) {
    for (std::int64_t h = 0; h < kv_heads; ++h) {
      // This sequence's keys and values for kv head h, regenerated token by token.
      std::vector<std::vector<float>> keys, values;
      for (std::int64_t t = 0; t < context; ++t) {
        keys.push_back(k_cache.values(kv_storage, static_cast<std::size_t>(k_offset(b, t, h)), dk));
        if (!mla) values.push_back(v_cache.values(kv_storage, static_cast<std::size_t>(v_offset(b, t, h)), dv));
      }
      auto key = [&](std::int64_t t) { return keys[t].data(); };
      auto value = [&](std::int64_t t) { return mla ? keys[t].data() : values[t].data(); };
      for (std::int64_t g = 0; g < group; ++g) {
        const std::int64_t head = h * group + g;
        const auto qv = q.values(q_storage, static_cast<std::size_t>((b * q_heads + head) * dk), dk);
        const auto expected = reference::attention_head(qv.data(), dk, dv, context, key, value, scale);
        const auto offset = static_cast<std::size_t>((b * q_heads + head) * dv);
        const auto got = out(offset, dv);
        for (std::int64_t i = 0; i < dv; ++i) cmp.add(got[i], expected[i], offset + i);
      }
    }
  }
  return cmp.finish();
}

}  // namespace fleetcast::engine
