// FP8 (E4M3) KV caches for decode attention: the reference regenerates the dequantised values a cache of
// that dtype holds (per-tensor scale, fill.hpp), q stays bf16, and the bytes count one per cached element.

#include <catch2/catch.hpp>

#include "cpu/cpu_kernels.hpp"
#include "fleetcast/engine/ops.hpp"
#include "problems/attention_problem.hpp"

using namespace fleetcast::engine;

namespace {

// The CPU kernel over the cache as stored with `kv` (and q as `q_storage`), checked against `p`.
CheckResult run_against(const AttentionProblem& p, Storage q_storage, Storage kv) {
  const auto q = p.q.values(q_storage, 0, p.q.count);
  const auto k = p.k_cache.values(kv, 0, p.k_cache.count);
  const auto v = p.v_cache.values(kv, 0, p.v_cache.count);
  std::vector<float> out(static_cast<std::size_t>(p.batch * p.q_heads * p.dv));
  cpu::attention_decode({q.data(), k.data(), p.mla ? nullptr : v.data(), p.block_table.data(), out.data(), p.batch,
                         p.context, p.q_heads, p.kv_heads, p.dk, p.dv, p.page_size, p.pages_per_seq,
                         static_cast<float>(p.scale)});
  return p.check(
      [&out](std::size_t offset, std::size_t count) {
        return std::vector<float>(out.begin() + static_cast<std::ptrdiff_t>(offset),
                                  out.begin() + static_cast<std::ptrdiff_t>(offset + count));
      },
      "fp8 kv", tolerance_for("fp32"), true);
}

}  // namespace

TEST_CASE("fp8 kv: the reference attends over the dequantised E4M3 cache and bf16 q", "[engine][fp8]") {
  const Shape gqa{{"batch", 2}, {"context", 50}, {"q_heads", 8}, {"kv_heads", 2}, {"head_dim", 64}, {"page_size", 16}};
  const Shape mla{{"batch", 1},        {"context", 40},  {"q_heads", 4},
                  {"latent_dim", 512}, {"rope_dim", 64}, {"page_size", 16}};
  for (const bool is_mla : {false, true}) {
    INFO((is_mla ? "mla" : "gqa"));
    const AttentionProblem p(is_mla ? mla : gqa, is_mla, Storage::fp8_e4m3);
    CHECK(p.q_storage == Storage::bf16);
    // At fp32's tolerance: a kernel fed the FP8 cache matches; one fed the unquantised values does not,
    // so the reference really uses what an FP8 cache holds.
    CHECK(run_against(p, Storage::bf16, Storage::fp8_e4m3).max_rel_error < tolerance_for("fp32"));
    CHECK_THROWS_AS(run_against(p, Storage::bf16, Storage::fp32), CheckFailed);
  }
}

TEST_CASE("fp8 kv: one byte per cached element, q and out in bf16", "[engine][fp8][cost]") {
  const OpInfo& gqa = *find_op("attention_decode_gqa");
  const Shape a{{"batch", 2}, {"context", 100}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"page_size", 16}};
  CHECK(op_cost(gqa, a, "fp8").bytes == 1.0 * 2 * 100 * 8 * 128 * 2 + 2.0 * 2 * 32 * 128 * 2 + 2 * 7 * 4.0);
  CHECK(op_cost(gqa, a, "fp8").flops == op_cost(gqa, a, "bf16").flops);
  const OpInfo& mla = *find_op("attention_decode_mla");
  const Shape l{{"batch", 1},        {"context", 64},  {"q_heads", 16},
                {"latent_dim", 512}, {"rope_dim", 64}, {"page_size", 64}};
  CHECK(op_cost(mla, l, "fp8").bytes == 64 * 576 * 1.0 + 16 * (576 + 512) * 2.0 + 4.0);
}
