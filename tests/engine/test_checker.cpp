// The check is what stands between a wrong kernel and a wrong calibration: a deliberately broken result
// must fail it, with a message naming the case and the element.

#include <catch2/catch.hpp>
#include <cmath>

#include "cpu/cpu_kernels.hpp"
#include "fleetcast/engine/check.hpp"
#include "problems/attention_problem.hpp"
#include "problems/gemm_problem.hpp"
#include "problems/memcpy_problem.hpp"
#include "problems/rowwise_problems.hpp"
#include "problems/sampling_problem.hpp"
#include "step_fixtures.hpp"

using namespace fleetcast::engine;

using fleetcast::engine::test::reader;

namespace {

std::vector<float> filled(const TensorInit& t) { return t.values(Storage::fp32, 0, t.count); }

std::string failure_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CheckFailed& e) {
    return e.what();
  }
  return "(passed)";
}

}  // namespace

TEST_CASE("checker: a GEMM with one wrong element fails, naming it", "[engine][check]") {
  const GemmProblem p({{"m", 8}, {"n", 16}, {"k", 32}}, Storage::fp32);
  const auto x = filled(p.x), w = filled(p.w);
  std::vector<float> y(8 * 16);
  cpu::gemm(x.data(), w.data(), y.data(), 8, 16, 32);
  CHECK(p.check(reader(y), "gemm", 2e-4, true).max_rel_error < 1e-5);
  y[5 * 16 + 3] *= 1.01f;  // one per cent off in one element
  const std::string e = failure_of([&] { p.check(reader(y), "gemm fp32 m=8", 2e-4, true); });
  CHECK_THAT(e, Catch::Contains("gemm fp32 m=8"));
  CHECK_THAT(e, Catch::Contains("output 83"));
  y[5 * 16 + 3] = NAN;
  CHECK_THAT(failure_of([&] { p.check(reader(y), "gemm", 2e-4, true); }), Catch::Contains("inf"));
}

TEST_CASE("checker: bf16-level noise passes a bf16 tolerance and fails an fp32 one", "[engine][check]") {
  const GemmProblem p({{"m", 4}, {"n", 4}, {"k", 64}}, Storage::fp32);
  const auto x = filled(p.x), w = filled(p.w);
  std::vector<float> y(16);
  cpu::gemm(x.data(), w.data(), y.data(), 4, 4, 64);
  for (auto& v : y) v = round_bf16(v);
  CHECK_NOTHROW(p.check(reader(y), "gemm", tolerance_for("bf16"), true));
  CHECK_THROWS_AS(p.check(reader(y), "gemm", tolerance_for("fp32"), true), CheckFailed);
}

TEST_CASE("checker: broken row-wise results are caught", "[engine][check]") {
  const RmsNormProblem norm({{"tokens", 3}, {"hidden", 64}}, Storage::fp32);
  const auto x = filled(norm.x), w = filled(norm.weight);
  std::vector<float> y(3 * 64);
  cpu::rmsnorm(x.data(), w.data(), y.data(), 3, 64, 1e-2f);  // the wrong epsilon
  CHECK_THROWS_AS(norm.check(reader(y), "rmsnorm", 2e-4, true), CheckFailed);

  const SwigluProblem sw({{"tokens", 2}, {"width", 8}}, Storage::fp32);
  const auto in = filled(sw.gate_up);
  std::vector<float> out(16, 0.0f);  // a kernel that wrote nothing
  CHECK_THROWS_AS(sw.check(reader(out), "swiglu", 2e-4, true), CheckFailed);
}

TEST_CASE("checker: attention reading the pages in the wrong order is caught", "[engine][check]") {
  const Shape shape{{"batch", 2}, {"context", 40}, {"q_heads", 4}, {"kv_heads", 2}, {"head_dim", 16}, {"page_size", 8}};
  AttentionProblem p(shape, false, Storage::fp32);
  const auto q = filled(p.q), k = filled(p.k_cache), v = filled(p.v_cache);
  std::vector<float> out(static_cast<std::size_t>(p.batch * p.q_heads * p.dv));
  auto table = p.block_table;
  auto run = [&] {
    cpu::attention_decode({q.data(), k.data(), v.data(), table.data(), out.data(), p.batch, p.context, p.q_heads,
                           p.kv_heads, p.dk, p.dv, p.page_size, p.pages_per_seq, static_cast<float>(p.scale)});
  };
  run();
  CHECK_NOTHROW(p.check(reader(out), "attention", 2e-4, true));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<std::int32_t>(i);  // pages in order
  run();
  CHECK_THROWS_AS(p.check(reader(out), "attention", 2e-4, true), CheckFailed);
}

TEST_CASE("checker: a wrong sampled token is an exact mismatch", "[engine][check]") {
  const SamplingProblem p({{"batch", 3}, {"vocab", 500}, {"top_k", 10}}, Storage::fp32);
  const auto logits = filled(p.logits);
  std::vector<std::int32_t> tokens(3);
  std::vector<float> probs(3);
  cpu::sampling(logits.data(), p.draws.data(), tokens.data(), probs.data(), 3, 500, 10);
  CHECK_NOTHROW(p.check(reader(tokens), reader(probs), "sampling", 2e-4, true));
  tokens[1] += 1;
  const std::string e = failure_of([&] { p.check(reader(tokens), reader(probs), "sampling", 2e-4, true); });
  CHECK_THAT(e, Catch::Contains("output 1"));
  CHECK_THAT(e, Catch::Contains("exact values differ"));
}

TEST_CASE("checker: one flipped byte in a copy is caught", "[engine][check]") {
  const MemcpyProblem p({{"bytes", 10000}});
  std::vector<unsigned char> dst(10000);
  for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = byte_value(MemcpyProblem::kSeed, i);
  CHECK_NOTHROW(p.check(reader(dst), "memcpy", true));
  dst[9999] ^= 1;
  CHECK_THROWS_AS(p.check(reader(dst), "memcpy", true), CheckFailed);
}

TEST_CASE("checker: samples spread over the output, whole when small or asked", "[engine][check]") {
  CHECK(sample_indices(5, 16, false) == std::vector<std::int64_t>{0, 1, 2, 3, 4});
  CHECK(sample_indices(1000, 4, false) == std::vector<std::int64_t>{0, 333, 666, 999});
  CHECK(sample_indices(1000, 4, true).size() == 1000);
  CHECK(sample_indices(0, 4, false).empty());
}

TEST_CASE("checker: the error is relative to the typical magnitude near zero", "[engine][check]") {
  Comparison c("case", 1e-3);
  c.add(1.0, 1.0, 0);
  c.add(-1.0, -1.0, 1);
  c.add(1e-4, 0.0, 2);  // 1e-4 away from an expected zero: small against the rms of 0.8
  const auto r = c.finish();
  CHECK(r.compared == 3);
  CHECK(r.max_rel_error == Catch::Detail::Approx(1e-4 / std::sqrt(2.0 / 3.0)));
}
