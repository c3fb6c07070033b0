// Every op on the CPU backend against the straightforward reference, on small shapes: the op table's own
// check shape in full, and shapes with ragged edges (a last page part-filled, odd widths, m = 1).

#include <catch2/catch.hpp>

#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/ops.hpp"

using namespace fleetcast::engine;

namespace {

CheckResult check_cpu(const std::string& op_name, const Shape& shape, const std::string& dtype = "bf16") {
  auto backend = make_cpu_backend();
  const OpInfo& op = *find_op(op_name);
  validate_shape(op, shape, "test", "shape");
  const Support s = backend->support(op, dtype, shape);
  REQUIRE(s.supported);
  auto prepared = backend->prepare(op, s.dtype, shape);
  return prepared->check(true);
}

}  // namespace

TEST_CASE("cpu backend: every op passes its small-shape check in full", "[engine][cpu]") {
  auto backend = make_cpu_backend();
  for (const auto& op : all_ops()) {
    INFO(op.name);
    const Support s = backend->support(op, op.dtypes.front(), op.small_check);
    // Copies over a link and collectives need devices; they are skipped, saying so.
    const bool needs_device = op.op_class == OpClass::collective || op.name == "memcpy_h2d" ||
                              op.name == "memcpy_d2h" || op.name == "memcpy_p2p";
    if (needs_device) {
      CHECK_FALSE(s.supported);
      CHECK_THAT(s.reason, Catch::Contains("no device"));
      continue;
    }
    REQUIRE(s.supported);
    CHECK(s.dtype == (op.dtypes.front() == "u8" ? "u8" : "fp32"));  // bf16 requests run, and say so, as fp32
    auto prepared = backend->prepare(op, s.dtype, op.small_check);
    const CheckResult r = prepared->check(true);
    CHECK(r.compared > 0);
    CHECK(r.max_rel_error < tolerance_for("fp32"));
  }
}

TEST_CASE("cpu backend: GEMM at ragged shapes", "[engine][cpu]") {
  for (const Shape& s : {Shape{{"m", 1}, {"n", 7}, {"k", 5}}, Shape{{"m", 17}, {"n", 33}, {"k", 300}},
                         Shape{{"m", 64}, {"n", 1}, {"k", 64}}}) {
    INFO(s.text());
    const auto r = check_cpu("gemm", s);
    CHECK(r.compared == static_cast<std::size_t>(s.at("m") * s.at("n")));
  }
}

TEST_CASE("cpu backend: row-wise ops at odd widths", "[engine][cpu]") {
  CHECK(check_cpu("rmsnorm", {{"tokens", 3}, {"hidden", 1}}).compared == 3);
  CHECK(check_cpu("rmsnorm", {{"tokens", 7}, {"hidden", 4097}}).compared == 7 * 4097);
  CHECK(check_cpu("swiglu", {{"tokens", 2}, {"width", 13}}).compared == 26);
  CHECK(check_cpu("rope", {{"tokens", 3}, {"q_heads", 3}, {"kv_heads", 1}, {"head_dim", 2}}).compared == 3 * 4 * 2);
}

TEST_CASE("cpu backend: sampling, greedy and top-k, including k = vocab", "[engine][cpu]") {
  check_cpu("sampling", {{"batch", 5}, {"vocab", 3000}, {"top_k", 1}}, "fp32");
  check_cpu("sampling", {{"batch", 5}, {"vocab", 3000}, {"top_k", 64}}, "fp32");
  check_cpu("sampling", {{"batch", 3}, {"vocab", 40}, {"top_k", 40}}, "fp32");
}

TEST_CASE("cpu backend: paged decode attention, last page part-filled", "[engine][cpu]") {
  // GQA with 4 query heads per kv head; context not a multiple of the page size.
  check_cpu("attention_decode_gqa",
            {{"batch", 2}, {"context", 45}, {"q_heads", 8}, {"kv_heads", 2}, {"head_dim", 32}, {"page_size", 16}});
  // MHA (one query head per kv head), one-token context, page size 1.
  check_cpu("attention_decode_gqa",
            {{"batch", 3}, {"context", 1}, {"q_heads", 4}, {"kv_heads", 4}, {"head_dim", 8}, {"page_size", 1}});
  // MLA latent 512 + rope 64: values are the latent part of the same cache entries.
  check_cpu("attention_decode_mla",
            {{"batch", 2}, {"context", 70}, {"q_heads", 16}, {"latent_dim", 512}, {"rope_dim", 64}, {"page_size", 64}});
}

TEST_CASE("cpu backend: memcpy of a size that is no multiple of anything", "[engine][cpu]") {
  CHECK(check_cpu("memcpy", {{"bytes", 12345}}, "u8").compared == 12345);
}

TEST_CASE("cpu backend: timing returns the repetitions asked for", "[engine][cpu]") {
  auto backend = make_cpu_backend();
  const OpInfo& op = *find_op("rmsnorm");
  auto prepared = backend->prepare(op, "fp32", op.small_check);
  const auto seconds = backend->time(*prepared, {2, 5, true});
  REQUIRE(seconds.size() == 5);
  for (const double s : seconds) CHECK(s >= 0.0);
}
