// Memory pressure in whole simulations: a replica whose KV cache holds 70 blocks of 16 tokens, two requests of
// 700 input and 100 output tokens arriving together, a 512-token step budget. Every step below is derived by
// hand from vLLM v1's rules and timed with the StepTimeModel.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/hardware_rates.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

constexpr int kBlocks = 70;

// Poisson at 1e9/s: both requests arrive within nanoseconds, the second during the first's first step.
// gpu_memory_utilization is set so that the KV cache is 70.5 blocks: 70 whole ones.
specs::ScenarioSpec tiny_kv_scenario(const std::string& preemption, double swap_space_gib = 4.0) {
  auto j = test::small_scenario();
  j["num_requests"] = 2;
  j["measurement"] = {{"warmup_fraction", 0.0}, {"cooldown_fraction", 0.0}};
  j["workload"]["arrival"]["rate_per_s"] = 1e9;
  j["workload"]["input_tokens"]["value"] = 700;
  j["workload"]["output_tokens"]["value"] = 100;
  j["deployment"]["scheduler"]["max_num_batched_tokens"] = 512;
  j["deployment"]["scheduler"]["preemption"] = preemption;
  j["deployment"]["scheduler"]["swap_space_gib"] = swap_space_gib;
  const auto first = test::parse(j);
  const auto plan = simulator::plan_memory(first.model, first.deployment);
  const double block = simulator::kv_bytes_per_gpu(first.model, first.deployment, 16);
  j["deployment"]["scheduler"]["gpu_memory_utilization"] =
      (plan.budget_bytes - plan.kv_bytes + (kBlocks + 0.5) * block) / plan.hbm_bytes;
  return test::parse(j);
}

struct Steps {
  simulator::StepTimeModel model;
  double prefill(std::initializer_list<simulator::PrefillChunk> chunks) const {
    simulator::BatchShape b;
    b.prefill = chunks;
    return model.predict(b).total_s;
  }
  // One request decoding alone from context `from` to `to` - 1.
  double decodes(int from, int to) const {
    double t = 0.0;
    for (int ctx = from; ctx < to; ++ctx) {
      simulator::BatchShape b;
      b.decode_contexts = {ctx};
      t += model.predict(b).total_s;
    }
    return t;
  }
};

Steps steps_of(const specs::ScenarioSpec& s) {
  return {
      simulator::StepTimeModel(s.model, s.deployment, calibration::datasheet_profile(s.deployment.hardware, "vllm"))};
}

}  // namespace

// Step 1: a's first chunk (512). Step 2: a's last 188 tokens, and b's first 324 (21 blocks: 44 + 21 <= 70).
// Step 3: a decodes (44 blocks) and b's next 376 tokens would need 44 blocks (88 > 70): b, the newest, is
// preempted before its first token and cannot come back while a runs (a 511-token chunk needs 32 blocks, 26
// at most are free). a decodes steps 3..101 and finishes; b prefills its 700 tokens again in steps 102-103
// (512 + 188, alone).
TEST_CASE("memory pressure preempts and the recompute shows in TTFT", "[serving][preemption]") {
  const auto s = tiny_kv_scenario("recompute");
  const auto plan = simulator::plan_memory(s.model, s.deployment);
  REQUIRE(std::floor(plan.kv_bytes / simulator::kv_bytes_per_gpu(s.model, s.deployment, 16)) == kBlocks);
  const auto report = simulator::simulate_in_child(s);

  const Steps st = steps_of(s);
  const double s1 = st.prefill({{512, 0, false}});
  const double s2 = st.prefill({{188, 512, true}, {324, 0, false}});
  const double a_decodes = st.decodes(700, 799);  // steps 3..101: contexts 700..798
  const double b_prefill = st.prefill({{512, 0, false}}) + st.prefill({{188, 512, true}});
  const double ttft_a = s1 + s2;
  const double ttft_b = s1 + s2 + a_decodes + b_prefill;
  const auto& m = report["metrics"];
  REQUIRE(m["requests_succeeded"] == 2);
  CHECK(m["ttft_ms"]["min"].get<double>() == Approx(1e3 * ttft_a).epsilon(1e-6));
  CHECK(m["ttft_ms"]["max"].get<double>() == Approx(1e3 * ttft_b).epsilon(1e-6));
  CHECK(m["e2e_latency_ms"]["max"].get<double>() == Approx(1e3 * (ttft_b + st.decodes(700, 799))).epsilon(1e-6));
  // Without the preemption b's first token would have come at the end of step 3, after its last 376 tokens.
  CHECK(ttft_b > s1 + s2 + st.prefill({{376, 324, true}}));
  const auto& kv = m["kv_cache"];
  CHECK(m["preemptions"] == 1);
  CHECK(kv["preemptions"] == 1);
  CHECK(kv["recomputes"] == 1);
  CHECK(kv["swaps_out"] == 0);
  CHECK(kv["requests_preempted"] == 1);
  CHECK(kv["by_class"]["default"]["recomputes"] == 1);
  CHECK(m["requests_preempted"] == 1);
}

// The same with preemption by swap: in step 3 b's 21 blocks go to host memory, and the step lasts a's decode
// plus their transfer; in step 102 they come back (another transfer) and b prefills only its last 376 tokens.
TEST_CASE("preemption by swap: the swapping steps last their transfer more and nothing is recomputed",
          "[serving][preemption][swap]") {
  const auto s = tiny_kv_scenario("swap");
  const auto report = simulator::simulate_in_child(s);
  const Steps st = steps_of(s);
  const double bytes = simulator::kv_bytes_per_gpu(s.model, s.deployment, 21 * 16);
  const double link =
      simulator::RateTable(s.deployment.hardware, calibration::datasheet_profile(s.deployment.hardware, "vllm"))
          .host_link_bytes_per_s();
  const double transfer = bytes / link;
  const double ttft_b = st.prefill({{512, 0, false}}) + st.prefill({{188, 512, true}, {324, 0, false}}) +
                        (st.decodes(700, 701) + transfer) + st.decodes(701, 799) +
                        (st.prefill({{376, 324, true}}) + transfer);
  const auto& m = report["metrics"];
  REQUIRE(m["requests_succeeded"] == 2);
  CHECK(m["ttft_ms"]["max"].get<double>() == Approx(1e3 * ttft_b).epsilon(1e-6));
  const auto& kv = m["kv_cache"];
  CHECK(kv["preemptions"] == 1);
  CHECK(kv["recomputes"] == 0);
  CHECK(kv["swaps_out"] == 1);
  CHECK(kv["swaps_in"] == 1);
  CHECK(kv["swapped_out_bytes_per_gpu"].get<double>() == Approx(bytes).epsilon(1e-12));
  CHECK(kv["swap_transfer_s"].get<double>() == Approx(2.0 * transfer).epsilon(1e-9));

  // A swap space smaller than b's KV: b is recomputed as in the test above, with the same TTFT.
  const auto small = simulator::simulate_in_child(tiny_kv_scenario("swap", 0.5 * bytes / 1073741824.0));
  const auto& sm = small["metrics"];
  CHECK(sm["kv_cache"]["swaps_out"] == 0);
  CHECK(sm["kv_cache"]["recomputes"] == 1);
  CHECK(sm["kv_cache"]["swap_transfer_s"] == 0.0);
  const auto recompute = simulator::simulate_in_child(tiny_kv_scenario("recompute"));
  CHECK(sm["ttft_ms"]["max"].get<double>() == Approx(recompute["metrics"]["ttft_ms"]["max"].get<double>()));
}

TEST_CASE("every scheduler policy serves a whole run; guaranteed_no_evict preempts nothing", "[serving][policy]") {
  for (const char* policy : {"vllm", "sglang", "trtllm"}) {
    auto j = test::small_scenario();
    j["deployment"]["scheduler"]["policy"] = policy;
    const auto report = simulator::simulate_in_child(test::parse(j));
    INFO(policy);
    CHECK(report["metrics"]["success_rate"] == 1.0);
    CHECK(report["metrics"]["kv_cache"]["preemptions"] == report["metrics"]["preemptions"]);
    if (std::string(policy) == "trtllm") CHECK(report["metrics"]["preemptions"] == 0);
  }
}
