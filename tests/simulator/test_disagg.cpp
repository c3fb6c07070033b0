// Prefill/decode disaggregation: TTFT carries the KV transfer over the platform's links, transfers share links,
// and each pool does only its own kind of work. Whole simulations run in forked children.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

// Llama-3.1-8B: one prefill replica and one decode replica of `gpus_per_node` GPUs each, one node per pool.
nlohmann::json disagg_scenario(int gpus_per_node) {
  auto j = test::small_scenario();
  auto& d = j["deployment"];
  d.erase("replica");
  d.erase("scheduler");
  d["nodes"] = 2;
  d["gpus_per_node"] = gpus_per_node;
  d["disaggregation"] = {{"prefill",
                          {{"nodes", 1},
                           {"replica", {{"tp", gpus_per_node}}},
                           {"scheduler", {{"max_num_seqs", 64}, {"max_num_batched_tokens", 2048}}}}},
                         {"decode",
                          {{"nodes", 1},
                           {"replica", {{"tp", gpus_per_node}}},
                           {"scheduler", {{"max_num_seqs", 64}, {"max_num_batched_tokens", 512}}}}}};
  j["measurement"] = {{"warmup_fraction", 0.0}, {"cooldown_fraction", 0.0}};
  return j;
}

struct OneRequest {
  double ttft_s = 0.0;
  double tpot_s = 0.0;
  double kv_bytes = 0.0;
};

// The figures one request on an idle deployment must show: its prefill chunks on the prefill pool's step
// model, then the route's latency plus its KV bytes at the link's bandwidth, then output - 1 decodes on the
// decode pool's step model.
OneRequest predicted(const specs::ScenarioSpec& s, int input, int output, double latency_s, double link_bytes_per_s) {
  const auto profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime);
  const auto prefill_dep = specs::pool_deployment(s.deployment, specs::Pool::prefill);
  const auto decode_dep = specs::pool_deployment(s.deployment, specs::Pool::decode);
  const simulator::StepTimeModel prefill(s.model, prefill_dep, profile);
  const simulator::StepTimeModel decode(s.model, decode_dep, profile);
  OneRequest p;
  const int budget = prefill_dep.scheduler.max_num_batched_tokens;
  for (int done = 0; done < input; done += budget) {
    const int chunk = std::min(budget, input - done);
    simulator::BatchShape b;
    b.prefill.push_back({chunk, done, done + chunk == input});
    p.ttft_s += prefill.predict(b).total_s;
  }
  p.kv_bytes = simulator::kv_bytes_per_gpu(s.model, prefill_dep, input);
  p.ttft_s += latency_s + p.kv_bytes / link_bytes_per_s;
  double decodes = 0.0;
  for (int ctx = input; ctx < input + output - 1; ++ctx) {
    simulator::BatchShape b;
    b.decode_contexts = {ctx};
    decodes += decode.predict(b).total_s;
  }
  p.tpot_s = decodes / (output - 1);
  return p;
}

void check_one_request(const nlohmann::json& j, double latency_s, double link_bytes_per_s) {
  const auto s = test::parse(j);
  const auto report = simulator::simulate_in_child(s);
  const OneRequest want = predicted(s, 5000, 20, latency_s, link_bytes_per_s);
  const auto& m = report["metrics"];
  REQUIRE(m["requests_succeeded"] == 1);
  CHECK(m["kv_transfer"]["transfers"] == 1);
  CHECK(m["kv_transfer"]["bytes_per_gpu_total"].get<double>() == Approx(want.kv_bytes).epsilon(1e-12));
  CHECK(m["ttft_ms"]["mean"].get<double>() == Approx(1e3 * want.ttft_s).epsilon(1e-9));
  CHECK(m["tpot_ms"]["mean"].get<double>() == Approx(1e3 * want.tpot_s).epsilon(1e-9));
  CHECK(m["kv_transfer"]["time_ms"]["mean"].get<double>() ==
        Approx(1e3 * (latency_s + want.kv_bytes / link_bytes_per_s)).epsilon(1e-9));
}

nlohmann::json one_request(nlohmann::json j) {
  j["num_requests"] = 1;
  j["workload"]["input_tokens"]["value"] = 5000;  // prefill chunks 2048, 2048, 904
  j["workload"]["output_tokens"]["value"] = 20;
  return j;
}

}  // namespace

TEST_CASE("disaggregated TTFT = prefill steps + KV bytes over NVLink inside one domain", "[disagg]") {
  // One GPU per node: both pools' GPUs sit in the H100's 8-GPU NVLink domain.
  const auto j = one_request(disagg_scenario(1));
  const auto s = test::parse(j);
  const auto profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime);
  // The route: the sender's NVLink up and the receiver's NVLink down, 1 us each (platform.cpp).
  check_one_request(j, 2e-6, s.deployment.hardware.nvlink_bytes_per_s_one_way() * profile.nvlink_efficiency);
}

TEST_CASE("disaggregated TTFT = prefill steps + KV bytes over the NIC between two HGX nodes", "[disagg]") {
  // Eight GPUs per node, one tp8 replica per pool: the KV leaves node 0's GPU 0 for node 1's GPU 0.
  const auto j = one_request(disagg_scenario(8));
  const auto s = test::parse(j);
  const auto profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime);
  // NIC up (1 us), fabric (2 us), NIC down (1 us).
  check_one_request(j, 4e-6, s.deployment.hardware.nic_bytes_per_s() * profile.nic_efficiency);
}

TEST_CASE("two KV transfers at once on one link take twice as long as one", "[disagg]") {
  // Closed loop: three clients send 30,000-token prompts at t = 0. The prefill replica starts a step on the
  // first it takes in; the others arrive meanwhile and are prefilled together in a later step (the 65,536-token
  // budget holds two prompts, not three), so exactly two KV transfers leave the prefill GPU at once for the one
  // decode GPU, and one leaves alone (the next prefill step lasts far longer than a transfer). At ~4 GB each over
  // ~370 GB/s the 2 us latency is 2e-4 of the time: the transfers are bandwidth-bound and share the link fairly.
  auto j = disagg_scenario(1);
  j["num_requests"] = 3;
  j["workload"]["arrival"] = {{"kind", "closed_loop"}, {"clients", 3}, {"think_time_s", 0.0}};
  j["workload"]["input_tokens"]["value"] = 30000;
  j["workload"]["output_tokens"]["value"] = 4;
  j["deployment"]["disaggregation"]["prefill"]["scheduler"]["max_num_batched_tokens"] = 65536;
  const auto s = test::parse(j);
  const auto report = simulator::simulate_in_child(s);
  const auto& t = report["metrics"]["kv_transfer"];
  REQUIRE(t["transfers"] == 3);
  const auto profile = calibration::profile_for(s.deployment.hardware, s.deployment.runtime);
  const double bytes =
      simulator::kv_bytes_per_gpu(s.model, specs::pool_deployment(s.deployment, specs::Pool::prefill), 30000);
  const double bandwidth = s.deployment.hardware.nvlink_bytes_per_s_one_way() * profile.nvlink_efficiency;
  const double alone_ms = t["time_ms"]["min"].get<double>();
  const double together_ms = t["time_ms"]["max"].get<double>();
  CHECK(alone_ms == Approx(1e3 * (2e-6 + bytes / bandwidth)).epsilon(1e-9));
  CHECK(t["time_ms"]["p50"].get<double>() == Approx(together_ms).epsilon(1e-9));  // two of the three shared
  CHECK(together_ms / alone_ms == Approx(2.0).epsilon(0.01));
}

TEST_CASE("the decode pool never prefills and the prefill pool never decodes", "[disagg]") {
  auto j = disagg_scenario(1);
  j["num_requests"] = 300;
  j["workload"]["arrival"] = {{"kind", "poisson"}, {"rate_per_s", 20.0}};
  j["workload"]["input_tokens"] = {{"kind", "uniform"}, {"min", 100}, {"max", 3000}};
  j["workload"]["output_tokens"] = {{"kind", "uniform"}, {"min", 2}, {"max", 200}};
  const auto report = simulator::simulate_in_child(test::parse(j));
  const auto& m = report["metrics"];
  REQUIRE(m["preemptions"] == 0);  // a preempted decode would recompute its prompt on the decode pool
  CHECK(m["requests_succeeded"] == 300);
  CHECK(m["kv_transfer"]["transfers"] == 300);
  CHECK(m["pools"]["prefill"]["prefill_tokens_in_run"].get<double>() > 0);
  CHECK(m["pools"]["prefill"]["decode_tokens_in_run"] == 0);
  CHECK(m["pools"]["decode"]["prefill_tokens_in_run"] == 0);
  CHECK(m["pools"]["decode"]["decode_tokens_in_run"].get<double>() > 0);
  CHECK(m["pools"]["decode"]["prefill_busy_share"].get<double>() == 0.0);
  CHECK(m["pools"]["prefill"]["decode_busy_share"].get<double>() == 0.0);
  CHECK(report["derived"]["replicas"] == 2);
  CHECK(report["derived"]["pools"]["decode"]["gpus"] == 1);
}

TEST_CASE("a prefilled request is admitted with its prompt's blocks and only decodes", "[disagg][batcher]") {
  specs::SchedulerSpec spec;
  spec.max_num_seqs = 1;
  spec.kv_block_tokens = 16;
  // 1 byte per token of KV, room for 1,000 tokens.
  simulator::Batcher b(spec, {1000.0, [](double tokens) { return tokens; }});
  simulator::Request r;
  r.input_tokens = 100;
  r.output_tokens = 5;
  r.kv_tokens = 100;  // the prompt's KV came from the prefill replica, with the first token
  r.generated = 1;
  REQUIRE(b.add_prefilled(&r) == simulator::Batcher::Prefilled::admitted);
  CHECK(b.kv_used_bytes() == 112.0);  // 7 blocks of 16
  simulator::Request other = r;
  CHECK(b.add_prefilled(&other) == simulator::Batcher::Prefilled::no_room);  // max_num_seqs 1
  for (int step = 0; step < 4; ++step) {
    const auto& batch = b.schedule(0.0);
    CHECK(batch.prefill.empty());
    CHECK(batch.decode_contexts == std::vector<int>{100 + step});
    b.complete(1.0 + step);
  }
  CHECK(r.generated == 5);
  CHECK_FALSE(b.has_work());
  simulator::Request huge = r;
  huge.input_tokens = 990;  // 990 + 5 output tokens need 63 blocks = 1,008 bytes > 1,000
  CHECK(b.add_prefilled(&huge) == simulator::Batcher::Prefilled::never_fits);
  CHECK(huge.failed);
}
