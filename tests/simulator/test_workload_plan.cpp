// Resolving a mix before simulating: the request split, class loads that add up, the mix's capacity.
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/workload_plan.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::split_requests;

namespace {

simulator::WorkloadPlan plan_of(const nlohmann::json& j) {
  const auto s = test::parse(j);
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::datasheet_profile(s.deployment.hardware, "vllm"));
  return simulator::plan_workload(s, model, simulator::plan_memory(s.model, s.deployment));
}

nlohmann::json lengths_class(const char* name, int in, int out, const nlohmann::json& arrival) {
  return {{"name", name},
          {"arrival", arrival},
          {"input_tokens", {{"kind", "fixed"}, {"value", in}}},
          {"output_tokens", {{"kind", "fixed"}, {"value", out}}}};
}

}  // namespace

TEST_CASE("split_requests: proportional, exact, largest remainders first, ties to the lower index", "[plan]") {
  CHECK(split_requests(1000000, {3.0, 1.0}) == std::vector<std::int64_t>{750000, 250000});
  CHECK(split_requests(10, {1.0, 1.0, 1.0}) == std::vector<std::int64_t>{4, 3, 3});
  CHECK(split_requests(7, {0.5, 0.25, 0.25}) == std::vector<std::int64_t>{3, 2, 2});  // 3.5, 1.75, 1.75
  CHECK(split_requests(5, {0.0, 2.0}) == std::vector<std::int64_t>{0, 5});
  CHECK(split_requests(1, {1.0, 1.0}) == std::vector<std::int64_t>{1, 0});
  CHECK(split_requests(9, {1.0}) == std::vector<std::int64_t>{9});
}

TEST_CASE("one class: the plan is that class's capacity estimate and load x capacity", "[plan]") {
  auto j = test::small_scenario();
  j["workload"]["arrival"] = {{"kind", "poisson"}, {"load", 0.5}};
  const auto plan = plan_of(j);
  REQUIRE(plan.classes.size() == 1);
  const auto& c = plan.classes[0];
  CHECK(c.requests == 100);
  CHECK(c.rate_per_s == 0.5 * c.capacity.requests_per_s);
  CHECK(c.load == Approx(0.5));
  CHECK(plan.mix.requests_per_s == c.capacity.requests_per_s);
  CHECK(plan.mix.limited_by == c.capacity.limited_by);
  CHECK(plan.open_rate_per_s == c.rate_per_s);
}

TEST_CASE("class loads are shares of capacity for their own lengths, and they add up", "[plan]") {
  auto j = test::small_scenario();
  j["num_requests"] = 100000;  // rounding moves a class by one request at most
  j["workload"] = {{"name", "mix"},
                   {"classes",
                    {lengths_class("chat", 200, 50, {{"kind", "poisson"}, {"load", 0.3}}),
                     lengths_class("document", 8000, 400, {{"kind", "poisson"}, {"load", 0.4}})}}};
  const auto plan = plan_of(j);
  const auto& chat = plan.classes[0];
  const auto& doc = plan.classes[1];
  CHECK(chat.capacity.requests_per_s > 5.0 * doc.capacity.requests_per_s);  // long documents cost far more
  CHECK(chat.rate_per_s == 0.3 * chat.capacity.requests_per_s);
  CHECK(doc.rate_per_s == 0.4 * doc.capacity.requests_per_s);
  CHECK(plan.load == Approx(0.7));
  CHECK(chat.requests + doc.requests == 100000);
  CHECK(static_cast<double>(chat.requests) / doc.requests == Approx(chat.rate_per_s / doc.rate_per_s).epsilon(0.01));
  // The mix saturates the fleet at the total rate / the total load (1 / sum of w_i / capacity_i).
  CHECK(plan.mix.requests_per_s == Approx(plan.open_rate_per_s / 0.7));
  CHECK(plan.mix.requests_per_s > doc.capacity.requests_per_s);
  CHECK(plan.mix.requests_per_s < chat.capacity.requests_per_s);
}

TEST_CASE("closed-loop classes share the requests by their expected rate", "[plan]") {
  auto j = test::small_scenario();
  j["num_requests"] = 900;
  const nlohmann::json closed = {{"kind", "closed_loop"}, {"clients", 4}, {"think_time_s", 1}};
  j["workload"] = {{"classes",
                    {lengths_class("open", 500, 50, {{"kind", "poisson"}, {"rate_per_s", 2.0}}),
                     lengths_class("agents", 500, 50, closed)}}};
  const auto plan = plan_of(j);
  const auto& agents = plan.classes[1];
  CHECK(agents.rate_per_s == 0.0);
  CHECK(plan.open_rate_per_s == 2.0);

  // 4 clients on one replica: a batch of 4, and an answer takes 50 steps of that batch's step time.
  const auto s = test::parse(j);
  const simulator::StepTimeModel model(s.model, s.deployment,
                                       calibration::datasheet_profile(s.deployment.hardware, "vllm"));
  const auto at_four =
      simulator::estimate_capacity(s, s.workload.classes[1], model, simulator::plan_memory(s.model, s.deployment), 4.0);
  CHECK(at_four.limited_by == "clients");
  CHECK(at_four.batch_per_replica == 4.0);
  CHECK(agents.expected_rate_per_s == Approx(4.0 / (1.0 + 50.0 * at_four.step_s)));
  CHECK(agents.capacity.limited_by != "clients");  // its capacity is the fleet's, not capped by its clients

  CHECK(plan.classes[0].requests + agents.requests == 900);
  CHECK(static_cast<double>(agents.requests) / plan.classes[0].requests ==
        Approx(agents.expected_rate_per_s / 2.0).epsilon(0.02));
}

TEST_CASE("capacity: engines that run prompts in steps of their own pay for those steps apart from the decodes",
          "[plan]") {
  // 64 sequences of 500 in / 50 out on one H100: a decode step of 64 and, per decode step, 640 prompt tokens.
  auto j = test::small_scenario();
  const auto estimate = [&](const nlohmann::json& scheduler) {
    j["deployment"]["scheduler"] = scheduler;
    const auto s = test::parse(j);
    const simulator::StepTimeModel model(s.model, s.deployment,
                                         calibration::datasheet_profile(s.deployment.hardware, "vllm"));
    return std::pair{
        simulator::estimate_capacity(s, s.workload.classes[0], model, simulator::plan_memory(s.model, s.deployment)),
        model};
  };
  const nlohmann::json base = {{"max_num_seqs", 64}, {"max_num_batched_tokens", 2048}};
  auto sglang = base;
  sglang["policy"] = "sglang";
  const auto [separate, model] = estimate(sglang);
  simulator::BatchShape decodes, prompts;
  decodes.decode_contexts.assign(64, 525);
  prompts.prefill = {{500, 0, true}, {140, 0, true}};
  // SGLang: one decode step of the batch, then one prefill step of its 640 replacement tokens.
  CHECK(separate.step_s == Approx(model.predict(decodes).total_s + model.predict(prompts).total_s));
  // vLLM (and SGLang with --enable-mixed-chunk) put both in one step, streaming the weights once: more requests/s.
  const auto mixed = estimate(base).first;
  auto mixed_sglang = sglang;
  mixed_sglang["mixed_chunk"] = true;
  CHECK(estimate(mixed_sglang).first.step_s == Approx(mixed.step_s));
  CHECK(separate.requests_per_s < mixed.requests_per_s);
  CHECK(separate.requests_per_s == Approx(64.0 / (50.0 * separate.step_s)));
}

TEST_CASE("capacity: TensorRT-LLM's guaranteed_no_evict holds a request's whole length in the KV cache", "[plan]") {
  // Long requests on one H100 so that the KV cache, not the batch cap, sets the batch: vLLM fits prompts plus half
  // their outputs, TensorRT-LLM's no-evict admission prompts plus whole outputs.
  auto j = test::small_scenario();
  j["workload"]["input_tokens"] = {{"kind", "fixed"}, {"value", 8000}};
  j["workload"]["output_tokens"] = {{"kind", "fixed"}, {"value", 2000}};
  j["model"] = specs::preset_json(specs::PresetKind::model, "llama-3.1-8b");
  const auto batch_under = [&](const char* policy) {
    j["deployment"]["scheduler"] = {{"policy", policy}, {"max_num_seqs", 1024}, {"max_num_batched_tokens", 65536}};
    const auto s = test::parse(j);
    const simulator::StepTimeModel model(s.model, s.deployment,
                                         calibration::datasheet_profile(s.deployment.hardware, "vllm"));
    const auto memory = simulator::plan_memory(s.model, s.deployment);
    const auto est = simulator::estimate_capacity(s, s.workload.classes[0], model, memory);
    CHECK(est.limited_by == "kv_cache");
    return std::pair{est.batch_per_replica, memory.kv_bytes};
  };
  const auto [vllm, vllm_kv] = batch_under("vllm");
  const auto [trtllm, trtllm_kv] = batch_under("trtllm");  // its memory plan sizes the cache its own way
  const auto s = test::parse(j);
  CHECK(vllm == std::floor(vllm_kv / simulator::kv_bytes_per_gpu(s.model, s.deployment, 9000.0)));
  CHECK(trtllm == std::floor(trtllm_kv / simulator::kv_bytes_per_gpu(s.model, s.deployment, 10000.0)));
  CHECK(trtllm / trtllm_kv < vllm / vllm_kv);
}
