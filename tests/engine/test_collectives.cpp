// Collectives and link copies without a GPU: nccl-tests' bus-bandwidth factors by hand, the record a
// collective makes (its GPU count, bus bandwidth as achieved GB/s), plan validation of their fields, and
// the CPU backend skipping them with a reason.

#include <catch2/catch.hpp>
#include <functional>

#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/harness.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/engine/plan.hpp"
#include "fleetcast/specs/error.hpp"

using namespace fleetcast::engine;
using Catch::Detail::Approx;
using nlohmann::json;

TEST_CASE("collectives: nccl-tests bus-bandwidth factors", "[engine][collective]") {
  // A ring all-reduce moves 2(n-1)/n of the buffer over each GPU's link: 1 on 2 GPUs, 1.75 on 8.
  CHECK(collective_bus_factor("all_reduce", 2) == 1.0);
  CHECK(collective_bus_factor("all_reduce", 8) == 1.75);
  // All-gather, reduce-scatter, all-to-all: every GPU receives (n-1)/n of the total from the others.
  CHECK(collective_bus_factor("all_gather", 8) == 0.875);
  CHECK(collective_bus_factor("reduce_scatter", 4) == 0.75);
  CHECK(collective_bus_factor("all_to_all", 8) == 0.875);
  CHECK(collective_bus_factor("send_recv", 8) == 1.0);
  CHECK_THROWS(collective_bus_factor("gemm", 8));
}

TEST_CASE("collectives: the record's GB/s is the bus bandwidth and its gpus the GPUs used", "[engine][collective]") {
  const OpInfo& op = *find_op("all_reduce");
  const Shape s{{"bytes", 1 << 30}, {"gpus", 8}};
  CHECK(op_cost(op, s, "bf16").bytes == 1.75 * (1 << 30));
  CHECK(op_cost(op, s, "bf16").flops == 0.0);
  // 1 GiB all-reduced in 10 ms: algorithm bandwidth 107.4 GB/s, bus bandwidth 1.75 times that.
  const auto m = make_measurement(op, "bf16", s, {0.01, 0.01, 0.01}, {});
  CHECK(m.gpus == 8);
  CHECK(m.achieved_gb_per_s == Approx(1.75 * (1 << 30) / 0.01 / 1e9));
  CHECK(m.shape.at("bytes").get<std::int64_t>() / m.median_s / 1e9 == Approx(107.374));  // algorithm bandwidth
  // Single-GPU ops keep gpus 1.
  CHECK(make_measurement(*find_op("memcpy"), "u8", {{"bytes", 100}}, {1e-6}, {}).gpus == 1);
}

TEST_CASE("link copies: one crossing of the link counted", "[engine][cost]") {
  for (const char* name : {"memcpy_h2d", "memcpy_d2h", "memcpy_p2p"})
    CHECK(op_cost(*find_op(name), {{"bytes", 4096}}, "u8").bytes == 4096.0);
}

TEST_CASE("collectives: plan fields are validated, naming the field", "[engine][collective][plan]") {
  auto error_of = [](const char* text) -> std::string {
    try {
      parse_plan(json::parse(text), "p.json");
    } catch (const fleetcast::InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const Plan ok = parse_plan(json::parse(R"({"name": "c", "ops": [
      {"op": "all_reduce", "dtypes": ["bf16"], "sweep": {"bytes": [1048576, 67108864], "gpus": [2, 8]}},
      {"op": "memcpy_h2d", "sweep": {"bytes": [4096]}}]})"),
                             "p.json");
  const auto cases = expand_plan(ok);
  REQUIRE(cases.size() == 5);
  CHECK(cases[1].op_case.shape == Shape{{"bytes", 1048576}, {"gpus", 8}});
  CHECK(cases[4].op_case.dtype == "u8");
  CHECK_THAT(error_of(R"({"name": "c", "ops": [{"op": "all_gather", "dtypes": ["bf16"],
                          "sweep": {"bytes": [4096], "gpus": [1]}}]})"),
             Catch::Contains("ops[0].sweep.gpus") && Catch::Contains("at least 2 GPUs"));
  CHECK_THAT(error_of(R"({"name": "c", "ops": [{"op": "reduce_scatter", "dtypes": ["fp32"],
                          "sweep": {"bytes": [1000], "gpus": [8]}}]})"),
             Catch::Contains("ops[0].sweep.bytes") && Catch::Contains("multiple of 4 x gpus (= 32)"));
  CHECK_THAT(error_of(R"({"name": "c", "ops": [{"op": "send_recv", "dtypes": ["bf16"], "sweep": {"bytes": [4096]}}]})"),
             Catch::Contains("ops[0].sweep.gpus"));
  CHECK_THAT(error_of(R"({"name": "c", "ops": [{"op": "attention_prefill", "dtypes": ["bf16"],
      "sweep": {"batch": [1], "chunk": [0], "context": [0], "q_heads": [8], "kv_heads": [2], "head_dim": [64],
                "page_size": [16]}}]})"),
             Catch::Contains("ops[0].sweep.chunk"));  // context may be 0, the chunk may not
  CHECK_THAT(error_of(R"({"name": "c", "ops": [{"op": "attention_prefill", "dtypes": ["bf16"],
      "sweep": {"batch": [1], "chunk": [4], "context": [0], "q_heads": [6], "kv_heads": [4], "head_dim": [64],
                "page_size": [16]}}]})"),
             Catch::Contains("ops[0].sweep.q_heads"));
  CHECK_THAT(error_of(R"({"name": "c", "ops": [{"op": "attention_decode_mla", "dtypes": ["fp4"],
      "sweep": {"batch": [1], "context": [64], "q_heads": [8], "latent_dim": [512], "rope_dim": [64],
                "page_size": [64]}}]})"),
             Catch::Contains("ops[0].dtypes[0]") && Catch::Contains("fp8"));
}

TEST_CASE("collectives and link copies: the CPU backend skips them with the reason", "[engine][collective]") {
  auto backend = make_cpu_backend();
  for (const char* name : {"all_reduce", "all_to_all", "send_recv", "memcpy_h2d", "memcpy_p2p"}) {
    const OpInfo& op = *find_op(name);
    const Support s = backend->support(op, op.dtypes.front(), op.small_check);
    CHECK_FALSE(s.supported);
    CHECK_THAT(s.reason, Catch::Contains("no device"));
  }
}
