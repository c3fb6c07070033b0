// Expert load imbalance and redundant experts: the busiest EP rank sets a MoE layer's time.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/expert_placement.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

specs::MoeSpec moe(int experts, int top_k) {
  specs::MoeSpec m;
  m.num_routed_experts = experts;
  m.top_k = top_k;
  m.expert_width = 1;
  return m;
}

specs::MoeLoadSpec shares(std::vector<double> s, int redundant = 0) {
  specs::MoeLoadSpec l;
  l.distribution = specs::ExpertDistribution::shares;
  l.shares = std::move(s);
  l.redundant_experts = redundant;
  return l;
}

}  // namespace

TEST_CASE("balanced traffic loads every rank alike and touches E(1-(1-k/E)^T)/ep experts each", "[experts]") {
  const auto p = simulator::place_experts(moe(256, 8), {}, 8);
  CHECK(p.load_factor == Approx(1.0));
  CHECK(p.hottest_copies.size() == 32);
  const double expected = 256.0 * (1.0 - std::pow(1.0 - 8.0 / 256.0, 100.0)) / 8.0;
  CHECK(simulator::copies_touched_on_busiest(p, 8, 100.0) == Approx(expected));
}

TEST_CASE("given shares are packed largest first; a redundant copy halves the hottest expert", "[experts]") {
  // Four experts on two ranks, shares 0.4 0.3 0.2 0.1: rank 0 takes 0.4 then 0.1, rank 1 takes 0.3 then 0.2.
  const auto p = simulator::place_experts(moe(4, 1), shares({4, 3, 2, 1}), 2);
  CHECK(p.load_factor == Approx(2 * 0.5));
  // Two redundant copies (six slots, three a rank): 0.4 splits into 0.2 + 0.2, then 0.3 into 0.15 + 0.15.
  // Largest first: 0.2 0.2 0.2 0.15 0.15 0.1 -> rank 0: 0.2 0.15 0.15 = 0.5? No: least loaded rank each time:
  // r0 0.2, r1 0.2, r0 0.4 (tie to r0), r1 0.35, r1 0.5, r0 0.5 -> both 0.5.
  const auto q = simulator::place_experts(moe(4, 1), shares({4, 3, 2, 1}, 2), 2);
  CHECK(q.load_factor == Approx(1.0));
}

TEST_CASE("power-law traffic makes the busiest rank slower and redundancy wins part of it back", "[experts]") {
  specs::MoeLoadSpec skewed;
  skewed.distribution = specs::ExpertDistribution::power_law;
  skewed.alpha = 1.0;
  const auto plain = simulator::place_experts(moe(256, 8), skewed, 32);
  CHECK(plain.load_factor > 1.5);
  skewed.redundant_experts = 32;
  const auto eplb = simulator::place_experts(moe(256, 8), skewed, 32);
  CHECK(eplb.load_factor < plain.load_factor);
  CHECK(eplb.load_factor >= 1.0);

  // In the step time, the routed experts' FLOPs per GPU follow the busiest rank.
  auto model = specs::model_preset("deepseek-v3");
  specs::DeploymentSpec d;
  d.hardware = specs::hardware_preset("h200");
  d.nodes = 1;
  d.gpus_per_node = 8;
  d.replica = {8, 1, 8};
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  simulator::BatchShape b;
  b.prefill.push_back({4096, 0, true});
  const double even = simulator::StepTimeModel(model, d, profile).predict(b).op(simulator::Op::moe_experts).flops();
  d.moe_load.distribution = specs::ExpertDistribution::power_law;
  d.moe_load.alpha = 1.0;
  const auto factor = simulator::place_experts(*model.moe, d.moe_load, 8).load_factor;
  const double uneven = simulator::StepTimeModel(model, d, profile).predict(b).op(simulator::Op::moe_experts).flops();
  CHECK(uneven == Approx(even * factor));
}

TEST_CASE("grouped GEMM row tiles: the power of two at or above the assignments per expert, 16 to 128", "[experts]") {
  CHECK(simulator::grouped_gemm_row_tile(64, 8, 256) == 16);     // 2 per expert
  CHECK(simulator::grouped_gemm_row_tile(1024, 8, 256) == 32);   // 32
  CHECK(simulator::grouped_gemm_row_tile(1024, 8, 128) == 64);   // 64
  CHECK(simulator::grouped_gemm_row_tile(1100, 8, 128) == 128);  // 68.75 -> 128
  CHECK(simulator::grouped_gemm_row_tile(65536, 8, 128) == 128);
}

TEST_CASE("padded grouped GEMM rows are within 2% of the exact binomial expectation", "[experts]") {
  // E[ceil(x / tile) x tile] for x ~ Binomial(tokens, k / E), summed exactly over x, against the closed form.
  const auto exact = [](double tokens, double p, int tile) {
    double rows = 0.0, pmf = std::pow(1.0 - p, tokens);  // P(x = 0)
    for (int x = 1; x <= static_cast<int>(tokens); ++x) {
      pmf *= (tokens - x + 1) / x * p / (1.0 - p);
      rows += pmf * std::ceil(static_cast<double>(x) / tile) * tile;
      if (x > tokens * p + 12 * std::sqrt(tokens * p) + 40) break;
    }
    return rows;
  };
  const auto p = simulator::place_experts(moe(128, 8), {}, 1);
  for (double tokens : {8.0, 64.0, 512.0, 1024.0, 1536.0, 8192.0}) {
    const int tile = simulator::grouped_gemm_row_tile(tokens, 8, 128);
    const double closed = simulator::padded_rows_on_busiest(p, 8, tokens, tile);
    INFO(tokens << " tokens, tile " << tile);
    CHECK(closed == Approx(128 * exact(tokens, 8.0 / 128, tile)).epsilon(0.02));
    CHECK(closed >= tokens * 8 - 1e-9);  // never fewer rows than assignments
  }
}
