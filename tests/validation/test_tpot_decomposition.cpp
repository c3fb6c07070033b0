// TPOT split by output length (tpot_decomposition.hpp): rows built as d + X / (osl - 1) give d and X back, rows
// that are not one fixed-length closed loop stay out, and the model's marginal prefill is no faster than the GPU's
// peak allows.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/validation/tpot_decomposition.hpp"

using namespace fleetcast;

namespace {

validation::RowPrediction row(int osl, double measured_tpot_ms, double predicted_tpot_ms, int clients = 8) {
  validation::RowPrediction p;
  p.run.id = "row-" + std::to_string(osl);
  p.run.model_path = "meta-llama/Llama-3.1-8B-Instruct";
  p.run.system = "h100_sxm";
  p.run.backend = "vllm";
  p.run.mode = "agg";
  p.run.isl = 1024;
  p.run.osl = osl;
  p.run.concurrency = clients;
  p.run.agg = {clients, 0, 2, 1, 1, 1, 1};
  p.run.ttft_ms = 100.0;
  p.run.tpot_ms = measured_tpot_ms;
  p.group = "llama-3.1-8b | h100 | vllm | agg";
  p.predicted = true;
  p.predicted_tpot_ms = predicted_tpot_ms;
  return p;
}

// Measured: a 10 ms decode step and 700 ms of other clients' prefills per request; predicted: an 11 ms step and
// the prefills all inside TTFT (a cohort).
double measured(int osl) { return 10.0 + 700.0 / (osl - 1); }

}  // namespace

TEST_CASE("rows differing only in osl give the decode step and the other clients' prefill time back",
          "[validation][decomposition]") {
  validation::ValidationResult r;
  for (int osl : {128, 512, 1024}) r.rows.push_back(row(osl, measured(osl), 11.0));
  // A second row at 512 is averaged with the first: the split is over output lengths, not rows.
  r.rows.push_back(row(512, measured(512) + 0.5, 11.0));
  r.rows.push_back(row(512, measured(512) - 0.5, 11.0));
  const auto splits = validation::decompose_tpot(r);
  REQUIRE(splits.size() == 1);
  const auto& d = splits[0];
  CHECK(d.osls == std::vector<int>{128, 512, 1024});
  CHECK(d.rows == 5);
  CHECK(d.concurrency == 8);
  CHECK(d.layout == "tp2 pp1 dp1 moe_tp1 ep1");
  CHECK(d.measured_step_ms == Approx(10.0));
  CHECK(d.measured_interference_ms == Approx(700.0));
  CHECK(d.predicted_step_ms == Approx(11.0));
  CHECK(d.predicted_interference_ms == Approx(0.0).margin(1e-9));

  // One prompt of 1,024 tokens through an 8B model on two H100s: at least its GEMMs' FLOPs at the FP8 peak
  // (2 x 8.0e9 parameters x 1,024 tokens over 2 x 1,979 TFLOPS = 4.1 ms), and finite.
  CHECK(std::isfinite(d.model_prefill_ms));
  CHECK(d.model_prefill_ms > 2.0 * 8.0e9 * 1024 / (2 * 1979e12) * 1e3);

  const nlohmann::json j = validation::to_json(splits);
  CHECK(j[0]["measured_interference_ms"].get<double>() == Approx(700.0));
  CHECK(j[0]["osls"] == nlohmann::json::array({128, 512, 1024}));
}

TEST_CASE("rows that are not one fixed-length closed loop at two output lengths give no split",
          "[validation][decomposition]") {
  validation::ValidationResult r;
  r.rows.push_back(row(128, measured(128), 11.0));
  SECTION("one output length only") {
    r.rows.push_back(row(128, measured(128), 11.0));
    CHECK(validation::decompose_tpot(r).empty());
  }
  SECTION("the other length from another client count, an open loop, drawn lengths or a row not predicted") {
    auto other_clients = row(512, measured(512), 11.0, 16);
    auto open_loop = row(512, measured(512), 11.0);
    open_loop.run.request_rate_per_s = 2.0;
    auto drawn = row(512, measured(512), 11.0);
    drawn.run.length_range_ratio = 0.8;
    auto failed = row(512, measured(512), 11.0);
    failed.predicted = false;
    for (const auto& p : {other_clients, open_loop, drawn, failed}) r.rows.push_back(p);
    CHECK(validation::decompose_tpot(r).empty());
  }
  SECTION("a model the mapping does not know still splits, without the model's prefill") {
    r.rows.push_back(row(512, measured(512), 11.0));
    for (auto& p : r.rows) p.run.model_path = "nobody/unknown-model";
    const auto splits = validation::decompose_tpot(r);
    REQUIRE(splits.size() == 1);
    CHECK(splits[0].measured_interference_ms == Approx(700.0));
    CHECK(std::isnan(splits[0].model_prefill_ms));
    CHECK(validation::to_json(splits)[0]["model_prefill_ms"].is_null());
  }
}
