// Prefill attention on the CPU backend against the reference: causal chunks after a paged context, GQA
// groups, ragged pages; and the check itself rejects what a wrong kernel would produce (a non-causal
// result, a cache read through the wrong pages), so a pass means something.

#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "cpu/cpu_kernels.hpp"
#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/ops.hpp"
#include "problems/prefill_problem.hpp"
#include "reference/reference.hpp"
#include "step_fixtures.hpp"

using namespace fleetcast::engine;

using fleetcast::engine::test::reader;

namespace {

Shape prefill_shape(std::int64_t batch, std::int64_t chunk, std::int64_t context, std::int64_t q_heads,
                    std::int64_t kv_heads, std::int64_t head_dim, std::int64_t page_size) {
  return {{"batch", batch},       {"chunk", chunk},       {"context", context},    {"q_heads", q_heads},
          {"kv_heads", kv_heads}, {"head_dim", head_dim}, {"page_size", page_size}};
}

CheckResult check_backend(const Shape& shape) {
  auto backend = make_cpu_backend();
  const OpInfo& op = *find_op("attention_prefill");
  validate_shape(op, shape, "test", "shape");
  const Support s = backend->support(op, "bf16", shape);
  REQUIRE(s.supported);
  return backend->prepare(op, s.dtype, shape)->check(true);
}

// The CPU kernel's output for `p`, reading the cache through `table` (the problem's own unless replaced).
std::vector<float> run_kernel(const PrefillProblem& p, const std::vector<std::int32_t>& table) {
  const auto q = p.q.values(Storage::fp32, 0, p.q.count);
  const auto k = p.k_cache.values(Storage::fp32, 0, p.k_cache.count);
  const auto v = p.v_cache.values(Storage::fp32, 0, p.v_cache.count);
  std::vector<float> out(q.size());
  cpu::attention_prefill({q.data(), k.data(), v.data(), table.data(), out.data(), p.batch, p.chunk, p.context,
                          p.q_heads, p.kv_heads, p.head_dim, p.page_size, p.pages_per_seq,
                          static_cast<float>(p.scale)});
  return out;
}

}  // namespace

TEST_CASE("prefill: CPU kernel matches the reference on causal chunks after a paged context", "[engine][cpu]") {
  // Chunk and context each span several 32-query and 64-key blocks; the last page is part-filled.
  CHECK(check_backend(prefill_shape(2, 100, 70, 8, 2, 16, 16)).compared == 2 * 100 * 8 * 16);
  // The first chunk of a prompt: no context at all, the whole triangle.
  CHECK(check_backend(prefill_shape(1, 77, 0, 4, 4, 8, 5)).compared == 77 * 4 * 8);
  // One new token after a long context: decode written as prefill; page size 1.
  CHECK(check_backend(prefill_shape(3, 1, 130, 6, 3, 32, 1)).compared == 3 * 6 * 32);
}

TEST_CASE("prefill: the check rejects a result without the causal mask", "[engine][cpu]") {
  const PrefillProblem p(prefill_shape(1, 40, 10, 2, 1, 16, 8), Storage::fp32);
  // Every query attending to the whole chunk, as a kernel that forgot the mask would compute.
  std::vector<float> out(p.q.count);
  std::vector<std::vector<float>> k_rows, v_rows;
  for (std::int64_t t = 0; t < p.keys; ++t) {
    k_rows.push_back(p.k_cache.values(Storage::fp32, static_cast<std::size_t>(p.cache_offset(0, t, 0)), 16));
    v_rows.push_back(p.v_cache.values(Storage::fp32, static_cast<std::size_t>(p.cache_offset(0, t, 0)), 16));
  }
  for (std::int64_t i = 0; i < p.chunk; ++i) {
    for (std::int64_t h = 0; h < p.q_heads; ++h) {
      const auto offset = static_cast<std::size_t>((i * p.q_heads + h) * 16);
      const auto q = p.q.values(Storage::fp32, offset, 16);
      const auto o = reference::attention_head(
          q.data(), 16, 16, p.keys, [&](std::int64_t t) { return k_rows[t].data(); },
          [&](std::int64_t t) { return v_rows[t].data(); }, p.scale);
      for (std::size_t x = 0; x < 16; ++x) out[offset + x] = static_cast<float>(o[x]);
    }
  }
  CHECK_THROWS_AS(p.check(reader(out), "non-causal", tolerance_for("fp32"), true), CheckFailed);
  // The last query sees every key, so its row is right either way: the check fails on the earlier ones.
  CHECK_NOTHROW(p.check(reader(run_kernel(p, p.block_table)), "kernel", tolerance_for("fp32"), true));
}

TEST_CASE("prefill: the check rejects a cache read through the wrong pages", "[engine][cpu]") {
  const PrefillProblem p(prefill_shape(2, 20, 30, 4, 2, 16, 8), Storage::fp32);
  std::vector<std::int32_t> in_order(p.block_table.size());
  std::iota(in_order.begin(), in_order.end(), 0);
  REQUIRE(in_order != p.block_table);  // the seeded shuffle moved pages
  CHECK_THROWS_AS(p.check(reader(run_kernel(p, in_order)), "pages in order", tolerance_for("fp32"), true), CheckFailed);
}

TEST_CASE("prefill: FLOPs count the causal triangle exactly, bytes each K, V, q and out once", "[engine][cost]") {
  const OpInfo& op = *find_op("attention_prefill");
  // chunk 4 after context 3: the queries see 4, 5, 6, 7 keys = 22 (query, key) pairs per head.
  const Shape s = prefill_shape(1, 4, 3, 2, 1, 8, 4);
  CHECK(op_cost(op, s, "bf16").flops == 4.0 * 2 * 8 * 22);
  // 7 keys of K and V (1 kv head x 8 dims, bf16), 4 x 2 heads x 8 of q and of out, 2 pages of block table.
  CHECK(op_cost(op, s, "bf16").bytes == 2.0 * 7 * 8 * 2 + 2.0 * 4 * 2 * 8 * 2 + 2 * 4.0);
  // Context 0: the triangle alone, n (n + 1) / 2 pairs.
  CHECK(op_cost(op, prefill_shape(1, 10, 0, 1, 1, 8, 4), "fp32").flops == 4.0 * 8 * 55);
}
