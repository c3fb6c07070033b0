// Speculative decoding: acceptance draws, the batcher's bookkeeping of drafts, and whole simulations whose
// acceptance length, TPOT and ITL are checked against hand-computed values.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/speculative.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::DraftAcceptance;

namespace {

specs::SpeculativeSpec mtp(int drafts, std::vector<double> rates) {
  return {specs::SpeculativeMethod::mtp, drafts, std::move(rates)};
}

DraftAcceptance acceptance(int drafts, std::vector<double> rates) {
  return DraftAcceptance(mtp(drafts, std::move(rates)), 7, simulator::kDraftAcceptanceStreamBase);
}

specs::SchedulerSpec sched(int seqs, int budget) {
  specs::SchedulerSpec s;
  s.max_num_seqs = seqs;
  s.max_num_batched_tokens = budget;
  s.kv_block_tokens = 1;
  return s;
}

simulator::KvBudget kv_bytes_per_token_one() { return {1e9, [](double tokens) { return tokens; }}; }

simulator::Request req(int in, int out) {
  simulator::Request r;
  r.input_tokens = in;
  r.output_tokens = out;
  return r;
}

}  // namespace

TEST_CASE("draft acceptance stops at the first rejection", "[speculative]") {
  // P(a drafts accepted) = r_1 ... r_a (1 - r_{a+1}): 0.1, 0.9 x 0.4, 0.9 x 0.6 x 0.7, 0.9 x 0.6 x 0.3.
  auto d = acceptance(3, {0.9, 0.6, 0.3});
  const std::vector<double> expected = {0.1, 0.36, 0.378, 0.162};
  std::vector<double> counts(4, 0.0);
  const int draws = 400000;
  for (int i = 0; i < draws; ++i) counts.at(static_cast<std::size_t>(d.draw())) += 1.0;
  for (std::size_t a = 0; a < 4; ++a) CHECK(counts[a] / draws == Approx(expected[a]).margin(0.004));

  CHECK(simulator::analytic_acceptance_length(mtp(3, {0.75})) == 2.734375);  // 1 + .75 + .5625 + .421875
  CHECK(simulator::analytic_acceptance_length(mtp(3, {0.9, 0.6, 0.3})) == Approx(2.602));
  auto always = acceptance(4, {1.0});
  auto never = acceptance(4, {0.0});
  for (int i = 0; i < 100; ++i) {
    CHECK(always.draw() == 4);
    CHECK(never.draw() == 0);
  }
}

TEST_CASE("a decode verifies 1 + n tokens and keeps 1 + the accepted ones", "[batcher][speculative]") {
  SECTION("all accepted: 1 + n tokens per step in one chunk, capped at the output") {
    simulator::Batcher b(sched(8, 100), kv_bytes_per_token_one(), acceptance(3, {1.0}));
    auto r = req(10, 7);
    REQUIRE(b.add(&r));
    b.schedule(0.0);
    CHECK(b.complete(1.0).first_tokens == 1);
    const auto& batch = b.schedule(1.0);
    CHECK(batch.decode_contexts == std::vector<int>{10});
    CHECK(batch.draft_tokens == 3);
    CHECK(batch.total_tokens() == 4);
    CHECK(b.kv_used_bytes() == 14.0);  // KV for the last token and its three drafts
    const auto out = b.complete(2.0);
    CHECK(out.output_tokens == 4);
    CHECK(out.decode_sequences == 1);
    CHECK(out.decode_output_tokens == 4);
    CHECK(out.token_gaps_s == std::vector<double>{1.0});  // one gap for the chunk of four
    CHECK(r.generated == 5);
    CHECK(b.schedule(2.0).decode_contexts == std::vector<int>{14});
    const auto last = b.complete(3.0);
    CHECK(last.output_tokens == 2);  // 7 wanted: never more
    CHECK(r.generated == 7);
    REQUIRE(last.finished.size() == 1);
    CHECK(b.kv_used_bytes() == 0.0);
  }
  SECTION("all rejected: one token per step; rejected drafts' blocks stay reserved") {
    simulator::Batcher b(sched(8, 100), kv_bytes_per_token_one(), acceptance(3, {0.0}));
    auto r = req(10, 5);
    b.add(&r);
    b.schedule(0.0);
    b.complete(1.0);
    b.schedule(1.0);
    CHECK(b.complete(2.0).output_tokens == 1);
    CHECK(r.kv_tokens == 11);
    CHECK(b.kv_used_bytes() == 14.0);
    CHECK(b.schedule(2.0).decode_contexts == std::vector<int>{11});
    CHECK(b.kv_used_bytes() == 15.0);
  }
  SECTION("a decode takes 1 + n tokens of the budget, or waits for the next step") {
    simulator::Batcher b(sched(8, 6), kv_bytes_per_token_one(), acceptance(3, {0.5}));
    auto x = req(3, 50), y = req(3, 50), z = req(20, 50);
    b.add(&x);
    b.add(&y);
    CHECK(b.schedule(0.0).prefill_tokens() == 6);
    b.complete(1.0);
    b.add(&z);
    const auto& batch = b.schedule(1.0);
    CHECK(batch.num_decode() == 1);      // 4 tokens; the second decode's 4 do not fit the 2 left
    CHECK(batch.prefill_tokens() == 2);  // which a new prompt takes
  }
}

TEST_CASE("the measured mean acceptance length is within 2% of the analytic value", "[serving][speculative]") {
  for (const auto& rates : {std::vector<double>{0.75}, std::vector<double>{0.9, 0.6, 0.3}}) {
    auto j = test::small_mtp_scenario(3, rates);
    j["num_requests"] = 16;
    j["measurement"] = {{"warmup_fraction", 0.0}, {"cooldown_fraction", 0.0}};
    j["workload"]["arrival"]["rate_per_s"] = 100.0;
    j["workload"]["input_tokens"]["value"] = 100;
    j["workload"]["output_tokens"]["value"] = 2000;  // long: the cap at the last step hardly matters
    const auto report = simulator::simulate_in_child(test::parse(j));
    const auto& sp = report["metrics"]["speculative"];
    const double analytic = rates.size() == 1 ? 2.734375 : 1.0 + 0.9 + 0.9 * 0.6 + 0.9 * 0.6 * 0.3;
    INFO("rates " << nlohmann::json(rates).dump() << ": " << sp.dump());
    CHECK(sp["analytic_acceptance_length"].get<double>() == Approx(analytic).epsilon(1e-12));
    CHECK(sp["mean_acceptance_length"].get<double>() == Approx(analytic).epsilon(0.02));
    CHECK(sp["decode_sequence_steps"].get<double>() > 10000);
    CHECK(sp["draft_tokens_accepted_share"].get<double>() ==
          Approx((sp["mean_acceptance_length"].get<double>() - 1.0) / 3.0));
    // Every produced token counts in the throughput, not one per step.
    const auto& m = report["metrics"];
    CHECK(m["throughput"]["output_tokens_per_s"].get<double>() * report["measurement"]["window_s"].get<double>() ==
          Approx(16 * 2000.0));
    CHECK(m["requests_succeeded"] == 16);
  }
}

TEST_CASE("acceptance 1 yields 1 + n tokens a step; acceptance 0 pays the drafts for nothing",
          "[serving][speculative]") {
  const int in = 500, out = 41, drafts = 3;
  auto j = test::small_mtp_scenario(drafts, {1.0});
  j["num_requests"] = 1;
  j["measurement"] = {{"warmup_fraction", 0.0}, {"cooldown_fraction", 0.0}};
  j["workload"]["input_tokens"]["value"] = in;
  j["workload"]["output_tokens"]["value"] = out;
  const auto s = test::parse(j);
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::datasheet_profile(s.deployment.hardware, "vllm"));
  const auto step = [&](int context, int n) {
    simulator::BatchShape b;
    b.decode_contexts = {context};
    b.draft_tokens = n;
    return model.predict(b);
  };

  SECTION("acceptance 1: ten steps of four tokens") {
    double decode = 0.0;
    for (int k = 0; k < 10; ++k) decode += step(in + 4 * k, drafts).total_s;
    const auto m = simulator::simulate_in_child(s)["metrics"];
    CHECK(m["tpot_ms"]["mean"].get<double>() == Approx(1e3 * decode / (out - 1)).epsilon(1e-9));
    CHECK(m["tpot_ms"]["mean"].get<double>() == Approx(1e3 * step(in, drafts).total_s / (1 + drafts)).epsilon(0.01));
    CHECK(m["itl_ms"]["count"] == 10);  // one gap per streamed chunk
    CHECK(m["itl_ms"]["mean"].get<double>() == Approx(1e3 * decode / 10).epsilon(1e-9));
    CHECK(m["speculative"]["mean_acceptance_length"].get<double>() == 4.0);
  }
  SECTION("acceptance 0: forty steps of one token, each a plain decode plus the draft passes") {
    j["deployment"]["speculative"]["acceptance_rates"] = {0.0};
    double decode = 0.0, plain_plus_draft = 0.0;
    for (int c = in; c < in + out - 1; ++c) {
      decode += step(c, drafts).total_s;
      plain_plus_draft += step(c, 0).total_s + step(c, drafts).op(simulator::Op::mtp_draft).time_s;
    }
    const auto m = simulator::simulate_in_child(test::parse(j))["metrics"];
    const double tpot = m["tpot_ms"]["mean"].get<double>();
    CHECK(tpot == Approx(1e3 * decode / (out - 1)).epsilon(1e-9));
    // Verifying four tokens instead of one adds little at batch 1 (weight reads dominate), but not nothing.
    CHECK(tpot == Approx(1e3 * plain_plus_draft / (out - 1)).epsilon(0.01));
    CHECK(tpot > 1e3 * plain_plus_draft / (out - 1));
    CHECK(m["itl_ms"]["count"] == out - 1);
    CHECK(m["speculative"]["mean_acceptance_length"].get<double>() == 1.0);
    CHECK(m["speculative"]["draft_tokens_accepted_share"].get<double>() == 0.0);
  }
}

TEST_CASE("with speculative decoding, the same seed gives the same bytes", "[serving][speculative]") {
  const auto j = test::small_mtp_scenario(3, {0.75});
  const auto s = test::parse(j);
  const std::string a = simulator::simulate_in_child(s).dump();
  CHECK(simulator::simulate_in_child(s).dump() == a);
  auto other = j;
  other["seed"] = 8;
  CHECK(simulator::simulate_in_child(test::parse(other)).dump() != a);
  CHECK_FALSE(simulator::simulate_in_child(test::parse(test::small_scenario()))["metrics"].contains("speculative"));
}
