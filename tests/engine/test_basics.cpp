// The small pieces every figure rests on: input values, roundings, percentiles, hand-counted costs, the
// datasheet a device is held against.

#include <catch2/catch.hpp>

#include "fleetcast/engine/datasheet.hpp"
#include "fleetcast/engine/fill.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/engine/stats.hpp"

using namespace fleetcast::engine;
using Catch::Detail::Approx;

TEST_CASE("fill: values are a pure function of seed and index, in [-1, 1)", "[engine][fill]") {
  double sum = 0.0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const float v = uniform_pm1(7, i);
    REQUIRE(v >= -1.0f);
    REQUIRE(v < 1.0f);
    sum += v;
  }
  CHECK(std::abs(sum / 100000) < 0.01);
  CHECK(uniform_pm1(7, 3) == uniform_pm1(7, 3));
  CHECK(uniform_pm1(7, 3) != uniform_pm1(8, 3));
}

TEST_CASE("fill: bf16 and e4m3 rounding, to nearest, ties to even", "[engine][fill]") {
  CHECK(round_bf16(1.0f) == 1.0f);
  CHECK(round_bf16(1.0f + 1.0f / 256) == 1.0f);                       // a tie: down to the even 1.0
  CHECK(round_bf16(1.0f + 3.0f / 256) == 1.0f + 4.0f / 256);          // a tie: up to the even neighbour
  CHECK(round_bf16(-3.14159f) == -3.140625f);
  CHECK(round_e4m3(1.0f) == 1.0f);
  CHECK(round_e4m3(1.0625f) == 1.0f);     // halfway between 1 and 1.125: to even
  CHECK(round_e4m3(1.1875f) == 1.25f);    // halfway between 1.125 and 1.25: to even
  CHECK(round_e4m3(-300.0f) == -288.0f);  // spacing 32 between 256 and 448
  CHECK(round_e4m3(1000.0f) == 448.0f);   // saturates
  CHECK(round_e4m3(0.0009f) == 0.0f);     // below half the smallest subnormal, 2^-9
  CHECK(round_e4m3(0.0025f) == 1.0f / 512);
  CHECK(round_e4m3(0.003f) == 1.0f / 256);
  CHECK(stored_value(Storage::fp8_e4m3, 1, 2, 1.0f, 0.0f) ==
        round_e4m3(uniform_pm1(1, 2) * 256.0f) / 256.0f);
}

TEST_CASE("stats: percentiles interpolate between order statistics", "[engine][stats]") {
  const auto p = percentiles({5.0, 1.0, 4.0, 2.0, 3.0});
  CHECK(p.median == 3.0);
  CHECK(p.p10 == Approx(1.4));
  CHECK(p.p90 == Approx(4.6));
  const auto one = percentiles({2.5});
  CHECK(one.p10 == 2.5);
  CHECK(one.p90 == 2.5);
  CHECK_THROWS(percentiles({}));
}

TEST_CASE("costs: FLOPs and bytes counted by hand", "[engine][cost]") {
  const OpInfo& gemm = *find_op("gemm");
  const Shape g{{"m", 128}, {"n", 4096}, {"k", 1024}};
  CHECK(op_cost(gemm, g, "bf16").flops == 2.0 * 128 * 4096 * 1024);
  CHECK(op_cost(gemm, g, "bf16").bytes == 2.0 * (128 * 1024 + 4096 * 1024 + 128 * 4096));
  CHECK(op_cost(gemm, g, "fp8").bytes == 1.0 * (128 * 1024 + 4096 * 1024) + 2.0 * 128 * 4096);  // bf16 out
  const OpInfo& gqa = *find_op("attention_decode_gqa");
  const Shape a{{"batch", 2}, {"context", 100}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"page_size", 16}};
  CHECK(op_cost(gqa, a, "bf16").flops == 4.0 * 2 * 32 * 100 * 128);
  CHECK(op_cost(gqa, a, "bf16").bytes == 2.0 * 2 * 100 * 8 * 128 * 2 + 2.0 * 2 * 32 * 128 * 2 + 2 * 7 * 4.0);
  const OpInfo& mla = *find_op("attention_decode_mla");
  const Shape l{{"batch", 1},        {"context", 64}, {"q_heads", 16},
                {"latent_dim", 512}, {"rope_dim", 64}, {"page_size", 64}};
  CHECK(op_cost(mla, l, "bf16").flops == 2.0 * 16 * 64 * (576 + 512));
  CHECK(op_cost(mla, l, "bf16").bytes == 64 * 576 * 2.0 + 16 * (576 + 512) * 2.0 + 4.0);  // the latent once
  CHECK(op_cost(*find_op("memcpy"), {{"bytes", 1000}}, "u8").bytes == 2000.0);
  CHECK(op_cost(*find_op("memcpy"), {{"bytes", 1000}}, "u8").flops == 0.0);
}

TEST_CASE("datasheet: device names find their preset, longest name first", "[engine][datasheet]") {
  CHECK(datasheet_for("NVIDIA H100 80GB HBM3")->name == "h100");
  CHECK(datasheet_for("NVIDIA H200")->name == "h200");
  CHECK(datasheet_for("NVIDIA B200")->name == "b200");
  CHECK(datasheet_for("NVIDIA GB200")->name == "gb200");
  CHECK_FALSE(datasheet_for("NVIDIA RTX 6000 Ada Generation").has_value());
  CHECK(device_slug("NVIDIA H200") == "h200");
  CHECK(device_slug("NVIDIA RTX 6000 Ada Generation") == "nvidia-rtx-6000-ada-generation");
  CHECK(device_slug("AMD EPYC 9654 96-Core Processor") == "amd-epyc-9654-96-core-processor");
  CHECK(device_slug("") == "unknown-device");
}
