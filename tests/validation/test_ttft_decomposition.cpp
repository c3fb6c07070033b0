// TTFT split by prompt length (ttft_decomposition.hpp): rows built as a + k x p(isl) give a and k back, with p the
// step model's price of one prompt, which grows with the prompt; rows that are not one fixed-length closed loop at two
// prompt lengths stay out.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/validation/prompt_cost.hpp"
#include "fleetcast/validation/ttft_decomposition.hpp"

using namespace fleetcast;

namespace {

validation::RowPrediction row(int isl, double measured_ttft_ms, double predicted_ttft_ms, int clients = 8) {
  validation::RowPrediction p;
  p.run.id = "row-" + std::to_string(isl);
  p.run.model_path = "meta-llama/Llama-3.1-8B-Instruct";
  p.run.system = "h100_sxm";
  p.run.backend = "vllm";
  p.run.mode = "agg";
  p.run.isl = isl;
  p.run.osl = 128;
  p.run.concurrency = clients;
  p.run.agg = {clients, 0, 2, 1, 1, 1, 1};
  p.run.ttft_ms = measured_ttft_ms;
  p.run.tpot_ms = 10.0;
  p.group = "llama-3.1-8b | h100 | vllm | agg";
  p.predicted = true;
  p.predicted_ttft_ms = predicted_ttft_ms;
  return p;
}

// The price of one prompt as the decomposition takes it: beside the other clients' decodes at context isl + osl / 2.
double prompt_ms(int isl) { return validation::marginal_prompt_ms(row(isl, 0, 0).run, isl + 64); }

}  // namespace

TEST_CASE("rows differing only in isl give the prompts each TTFT waits for and the rest back",
          "[validation][decomposition]") {
  // Measured: 40 ms of front end and 3 prompts' prefill per TTFT; predicted: 10 ms and 8 (a cohort of all 8 clients).
  auto measured = [](int isl) { return 40.0 + 3.0 * prompt_ms(isl); };
  auto predicted = [](int isl) { return 10.0 + 8.0 * prompt_ms(isl); };
  validation::ValidationResult r;
  for (int isl : {1024, 2048, 4096}) r.rows.push_back(row(isl, measured(isl), predicted(isl)));
  // A second row at 2048 is averaged with the first: the split is over prompt lengths, not rows.
  r.rows.push_back(row(2048, measured(2048) + 5.0, predicted(2048)));
  r.rows.push_back(row(2048, measured(2048) - 5.0, predicted(2048)));
  const auto splits = validation::decompose_ttft(r);
  REQUIRE(splits.size() == 1);
  const auto& d = splits[0];
  CHECK(d.isls == std::vector<int>{1024, 2048, 4096});
  CHECK(d.rows == 5);
  CHECK(d.osl == 128);
  CHECK(d.layout == "tp2 pp1 dp1 moe_tp1 ep1");
  CHECK(d.measured_prompts == Approx(3.0));
  CHECK(d.measured_base_ms == Approx(40.0));
  CHECK(d.predicted_prompts == Approx(8.0));
  CHECK(d.predicted_base_ms == Approx(10.0));

  // Each prompt no cheaper than its GEMMs at the FP8 peak (2 x 8.0e9 parameters x isl tokens over two H100s' 2 x
  // 1,979 TFLOPS), and a 4,096-token prompt more than twice a 2,048-token one's minimum (attention grows with it).
  REQUIRE(d.prompt_ms.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(d.prompt_ms[i] > 2.0 * 8.0e9 * d.isls[i] / (2 * 1979e12) * 1e3);
  CHECK(d.prompt_ms[2] > d.prompt_ms[1]);
  CHECK(d.prompt_ms[1] > d.prompt_ms[0]);

  const nlohmann::json j = validation::to_json(splits);
  CHECK(j[0]["measured_prompts"].get<double>() == Approx(3.0));
  CHECK(j[0]["isls"] == nlohmann::json::array({1024, 2048, 4096}));
}

TEST_CASE("rows that are not one fixed-length closed loop at two prompt lengths give no TTFT split",
          "[validation][decomposition]") {
  validation::ValidationResult r;
  r.rows.push_back(row(1024, 100.0, 120.0));
  SECTION("one prompt length only") {
    r.rows.push_back(row(1024, 110.0, 120.0));
    CHECK(validation::decompose_ttft(r).empty());
  }
  SECTION("the other length from another client count, an open loop, per-request lengths or a row not predicted") {
    auto other_clients = row(4096, 300.0, 320.0, 16);
    auto open_loop = row(4096, 300.0, 320.0);
    open_loop.run.request_rate_per_s = 2.0;
    auto listed = row(4096, 300.0, 320.0);
    listed.run.input_lens = {4000, 4096};
    listed.run.output_lens = {128, 120};
    auto failed = row(4096, 300.0, 320.0);
    failed.predicted = false;
    for (const auto& p : {other_clients, open_loop, listed, failed}) r.rows.push_back(p);
    CHECK(validation::decompose_ttft(r).empty());
  }
  SECTION("a model the mapping does not know has no price for its prompts, so no split") {
    r.rows.push_back(row(4096, 300.0, 320.0));
    for (auto& p : r.rows) p.run.model_path = "nobody/unknown-model";
    CHECK(std::isnan(validation::marginal_prompt_ms(r.rows[0].run, 1024 + 64)));
    CHECK(validation::decompose_ttft(r).empty());
  }
}

TEST_CASE("a client that drew its lengths is split at its nominal prompts and priced at its mean ones",
          "[validation][decomposition]") {
  // InferenceX's client: each request's prompt uniform in [floor(0.8 x isl), isl], its output in [102, 128]. The mean
  // prompts are 922 and 7,373 tokens (floor(819.2) = 819 and 1,024 average to 921.5, rounded to 922), each beside
  // decodes at the mean prompt plus half the mean output (115: floor(102.4) = 102 and 128 average to 115).
  auto drawn = [](int isl, double measured, double predicted) {
    auto p = row(isl, measured, predicted);
    p.run.length_range_ratio = 0.8;
    return p;
  };
  auto priced = [](int isl) {
    auto p = row(isl, 0, 0);
    p.run.isl = isl;
    return validation::marginal_prompt_ms(p.run, isl + 57);
  };
  const double p1 = priced(922), p8 = priced(7373);
  validation::ValidationResult r;
  r.rows.push_back(drawn(1024, 30.0 + 3.0 * p1, 20.0 + 1.0 * p1));
  r.rows.push_back(drawn(8192, 30.0 + 3.0 * p8, 20.0 + 1.0 * p8));
  const auto splits = validation::decompose_ttft(r);
  REQUIRE(splits.size() == 1);
  CHECK(splits[0].isls == std::vector<int>{1024, 8192});
  CHECK(splits[0].prompt_ms[0] == Approx(p1));
  CHECK(splits[0].prompt_ms[1] == Approx(p8));
  CHECK(splits[0].measured_prompts == Approx(3.0));
  CHECK(splits[0].predicted_prompts == Approx(1.0));
  CHECK(splits[0].measured_base_ms == Approx(30.0));
  // The nominal 8,192-token prompt costs more than the mean one: pricing at the nominal length would read another k.
  CHECK(prompt_ms(8192) > p8);
}
