// deployment.disaggregation: pools parsed strictly, written back, and bad input named by field path.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

namespace {

// 3 nodes of 8: one node of tp8 prefill replicas, two nodes of dp2 x tp4 decode replicas.
json disagg_json() {
  return {{"hardware", hardware_json()},
          {"nodes", 3},
          {"disaggregation",
           {{"prefill",
             {{"nodes", 1},
              {"replica", {{"tp", 8}}},
              {"scheduler", {{"max_num_batched_tokens", 32768}, {"max_num_seqs", 32}}}}},
            {"decode", {{"nodes", 2}, {"replica", {{"tp", 4}, {"dp", 2}, {"ep", 8}}}}}}}};
}

}  // namespace

TEST_CASE("disaggregation: pools with their own layouts and schedulers", "[specs][deployment][disagg]") {
  const DeploymentSpec d = parse_deployment(disagg_json(), "d.json");
  REQUIRE(d.disaggregation);
  CHECK(d.disaggregation->prefill.nodes == 1);
  CHECK(d.disaggregation->prefill.replica.tp == 8);
  CHECK(d.disaggregation->prefill.scheduler.max_num_batched_tokens == 32768);
  CHECK(d.disaggregation->decode.replica.dp == 2);
  SchedulerSpec vllm_on_80gb;  // vLLM's defaults on the test GPU (74.5 GiB): 1,024 sequences, 8,192 tokens
  vllm_on_80gb.max_num_seqs = 1024;
  CHECK(d.disaggregation->decode.scheduler == vllm_on_80gb);
  const DeploymentSpec prefill = pool_deployment(d, Pool::prefill);
  const DeploymentSpec decode = pool_deployment(d, Pool::decode);
  CHECK(prefill.total_gpus() == 8);
  CHECK(prefill.num_replicas() == 1);
  CHECK(decode.total_gpus() == 16);
  CHECK(decode.num_replicas() == 2);  // 16 GPUs / (dp 2 x tp 4)
  CHECK_FALSE(decode.disaggregation);
  CHECK(pool_first_gpu(d, Pool::prefill) == 0);
  CHECK(pool_first_gpu(d, Pool::decode) == 8);
  CHECK(serving_replicas(d) == 3);
}

TEST_CASE("disaggregation round-trips; absent, it is not written", "[specs][deployment][disagg][roundtrip]") {
  const DeploymentSpec d = parse_deployment(disagg_json(), "d.json");
  const json out = to_json(d);
  CHECK_FALSE(out.contains("replica"));
  CHECK_FALSE(out.contains("scheduler"));
  CHECK(out["disaggregation"]["decode"]["replica"]["dp"] == 2);
  CHECK(parse_deployment(out, "echo") == d);
  const json plain = {{"hardware", hardware_json()}, {"nodes", 1}};
  CHECK_FALSE(to_json(parse_deployment(plain, "d.json")).contains("disaggregation"));
}

TEST_CASE("disaggregation: bad input names the field", "[specs][deployment][disagg]") {
  SECTION("nodes must be the pools' sum") {
    json j = disagg_json();
    j["nodes"] = 4;
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.nodes", "4", "1 + 2 = 3");
  }
  SECTION("a top-level replica or scheduler is refused") {
    json j = disagg_json();
    j["replica"] = {{"tp", 8}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.replica", "",
                      "disaggregation.prefill.replica");
    j = disagg_json();
    j["scheduler"] = {{"max_num_seqs", 8}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.scheduler", "",
                      "disaggregation.decode.scheduler");
  }
  SECTION("a pool's layout must tile the pool's own GPUs") {
    json j = disagg_json();
    j["disaggregation"]["decode"]["replica"] = {{"tp", 8}, {"dp", 3}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.disaggregation.decode.replica.dp", "3",
                      "16 GPUs");
  }
  SECTION("a pool needs its nodes; unknown keys are refused") {
    json j = disagg_json();
    j["disaggregation"]["prefill"].erase("nodes");
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.disaggregation.prefill.nodes", "", "");
    j = disagg_json();
    j["disaggregation"]["decode"]["gpus"] = 16;
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.disaggregation.decode.gpus", "", "");
    j = disagg_json();
    j["disaggregation"].erase("decode");
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.disaggregation.decode", "", "");
  }
}
