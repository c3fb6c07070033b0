// parse_deployment / to_json(DeploymentSpec): defaults, layout checks, hardware by object or file.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

TEST_CASE("deployment defaults", "[specs][deployment]") {
  const json j = {{"hardware", hardware_json()}, {"nodes", 3}};
  const DeploymentSpec d = parse_deployment(j, "d.json");
  CHECK(d.name.empty());
  CHECK(d.gpus_per_node == 8);  // the hardware's
  CHECK(d.total_gpus() == 24);
  CHECK(d.replica.tp == 1);
  CHECK(d.replica.pp == 1);
  CHECK(d.replica.ep == 1);
  CHECK(d.num_replicas() == 24);
  CHECK(d.scheduler.max_num_seqs == 1024);  // vLLM's API server on a GPU of >= 70 GiB
  CHECK(d.scheduler.max_num_batched_tokens == 8192);
  CHECK(d.scheduler.chunked_prefill);
  CHECK(d.scheduler.gpu_memory_utilization < 0.0);  // the policy's: vLLM's 0.9, SGLang's own rule
  CHECK(d.scheduler.kv_block_tokens == 16);
  CHECK(d.scheduler.step_overhead_s == -1.0);
  CHECK(d.router == RouterPolicy::round_robin);
  CHECK(d.runtime == "vllm");
}

// The batch caps and token budgets a scheduler leaves out are what the runtime's engine picks on that GPU (the
// sources are in parse_deployment.cpp, scheduler_defaults_for).
TEST_CASE("a scheduler left out takes its engine's defaults for the GPU", "[specs][deployment]") {
  auto scheduler = [](const std::string& runtime, double hbm_gb, const std::string& name = "hw-test",
                      const json& given = json::object()) {
    json hw = hardware_json();
    hw["hbm_gb"] = hbm_gb;
    hw["name"] = name;
    if (runtime == "atom") hw["arch"] = "gfx942";  // ATOM runs on AMD GPUs only
    json j = {{"hardware", hw}, {"nodes", 1}, {"runtime", runtime}};
    if (!given.empty()) j["scheduler"] = given;
    return parse_deployment(j, "d.json").scheduler;
  };
  const auto h100 = scheduler("vllm", 80);  // 74.5 GiB
  CHECK(h100.max_num_seqs == 1024);
  CHECK(h100.max_num_batched_tokens == 8192);
  const auto a100 = scheduler("vllm", 80, "a100");  // vLLM keeps the small defaults on an A100 (vllm #17885)
  CHECK(a100.max_num_seqs == 256);
  CHECK(a100.max_num_batched_tokens == 2048);
  CHECK(scheduler("vllm", 48).max_num_batched_tokens == 2048);
  const auto b200 = scheduler("vllm", 180);  // 167.6 GiB: v0.28's larger budget
  CHECK(b200.max_num_seqs == 1024);
  CHECK(b200.max_num_batched_tokens == 16384);
  const auto sglang = scheduler("sglang", 141);  // 131 GiB
  CHECK(sglang.policy == SchedulerPolicy::sglang);
  CHECK(sglang.max_num_seqs == 2048);
  CHECK(sglang.max_num_batched_tokens == 16384);
  CHECK(sglang.chunk_tokens == 8192);
  CHECK(scheduler("sglang", 180).chunk_tokens == 16384);
  CHECK(scheduler("sglang", 48).chunk_tokens == 4096);
  // SGLang's chunk goes with SGLang's chunking: none without chunked prefill or under another policy.
  CHECK(scheduler("sglang", 141, "hw-test", {{"chunked_prefill", false}}).chunk_tokens == 0);
  CHECK(scheduler("sglang", 141, "hw-test", {{"policy", "vllm"}}).chunk_tokens == 0);
  CHECK(scheduler("sglang", 141, "hw-test", {{"chunk_tokens", 4096}}).chunk_tokens == 4096);
  const auto trt = scheduler("trtllm", 141);
  CHECK(trt.max_num_seqs == 2048);
  CHECK(trt.max_num_batched_tokens == 8192);
  const auto atom = scheduler("atom", 192);
  CHECK(atom.max_num_batched_tokens == 16384);
  CHECK_FALSE(atom.chunked_prefill);
  const auto deepinfer = scheduler("deepinfer", 180);
  CHECK(deepinfer.max_num_seqs == 256);
  CHECK(deepinfer.max_num_batched_tokens == 8192);
  CHECK(scheduler("vllm", 80, "hw-test", {{"max_num_seqs", 64}}).max_num_seqs == 64);  // given, kept
}

TEST_CASE("deployment with every field round-trips", "[specs][deployment][roundtrip]") {
  const json j = {{"name", "big"},
                  {"hardware", hardware_json()},
                  {"nodes", 4},
                  {"gpus_per_node", 4},
                  {"replica", {{"tp", 4}, {"pp", 2}, {"ep", 2}}},
                  {"scheduler",
                   {{"max_num_seqs", 128},
                    {"max_num_batched_tokens", 4096},
                    {"chunked_prefill", false},
                    {"gpu_memory_utilization", 1},
                    {"kv_block_tokens", 64},
                    {"step_overhead_s", 0.002}}},
                  {"router", "least_outstanding"},
                  {"runtime", "sglang"}};
  const DeploymentSpec d = parse_deployment(j, "d.json");
  CHECK(d.gpus_per_node == 4);
  CHECK(d.replica.moe_tp() == 2);
  CHECK(d.num_replicas() == 2);
  CHECK(d.scheduler.gpu_memory_utilization == 1.0);
  CHECK_FALSE(d.scheduler.chunked_prefill);
  CHECK(d.router == RouterPolicy::least_outstanding);
  CHECK(d.runtime == "sglang");
  const json out = to_json(d);
  CHECK(out["hardware"]["name"] == "hw-test");
  CHECK(parse_deployment(out, "echo") == d);
  CHECK(parse_deployment(to_json(parse_deployment(deployment_json(), "d.json")), "echo") ==
        parse_deployment(deployment_json(), "d.json"));
}

TEST_CASE("every router policy parses and round-trips", "[specs][deployment][roundtrip]") {
  const std::pair<const char*, RouterPolicy> policies[] = {{"round_robin", RouterPolicy::round_robin},
                                                           {"least_outstanding", RouterPolicy::least_outstanding},
                                                           {"least_kv_load", RouterPolicy::least_kv_load},
                                                           {"power_of_two", RouterPolicy::power_of_two},
                                                           {"prefix_aware", RouterPolicy::prefix_aware}};
  for (const auto& [name, policy] : policies) {
    json j = deployment_json();
    j["router"] = name;
    const DeploymentSpec d = parse_deployment(j, "d.json");
    CHECK(d.router == policy);
    CHECK(to_string(policy) == name);
    CHECK(to_json(d)["router"] == name);
    CHECK(parse_deployment(to_json(d), "echo") == d);
  }
}

TEST_CASE("hardware given as a file relative to base_dir", "[specs][deployment]") {
  ScratchDir dir;
  dir.write("hw/gpu.json", hardware_json().dump());
  const json j = {{"hardware", "hw/gpu.json"}, {"nodes", 1}};
  const DeploymentSpec d = parse_deployment(j, "d.json", "", dir.path());
  CHECK(d.hardware == parse_hardware(hardware_json(), "x"));

  json bad = hardware_json();
  bad["hbm_gb"] = 0;
  dir.write("hw/bad.json", bad.dump());
  const auto e = input_error_of([&] {
    parse_deployment({{"hardware", "hw/bad.json"}, {"nodes", 1}}, "d.json", "", dir.path());
  });
  CHECK(e.field() == "hbm_gb");  // the path within the hardware file
  CHECK_THAT(e.file(), Catch::EndsWith("hw/bad.json"));

  CHECK_INPUT_ERROR(parse_deployment({{"hardware", "hw/none.json"}, {"nodes", 1}}, "d.json", "deployment", dir.path()),
                    "deployment.hardware", "\"hw/none.json\"", "cannot open file");
}

TEST_CASE("deployment errors", "[specs][deployment][errors]") {
  json j = {{"hardware", hardware_json()}, {"nodes", 1}};
  SECTION("tp must divide the GPUs, naming the total") {
    j["replica"] = {{"tp", 3}};
    CHECK_INPUT_ERROR(parse_deployment(j, "s.json", "deployment"), "deployment.replica.tp", "3", "8 GPUs");
  }
  SECTION("tp x pp must divide the GPUs") {
    j["replica"] = {{"tp", 2}, {"pp", 3}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "replica.pp", "3", "dp x tp x pp = 6");
  }
  SECTION("dp x tp x pp must divide the GPUs, named on dp when dp is set") {
    j["replica"] = {{"tp", 2}, {"dp", 3}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "replica.dp", "3", "dp x tp x pp = 6");
  }
  SECTION("ep may span the DP ranks but must divide dp x tp") {
    j["replica"] = {{"tp", 1}, {"dp", 8}, {"ep", 8}};
    const auto d = parse_deployment(j, "d.json");
    CHECK(d.replica.gpus() == 8);
    CHECK(d.replica.moe_tp() == 1);
    CHECK(d.num_replicas() == 1);
    j["replica"] = {{"tp", 2}, {"dp", 2}, {"ep", 8}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "replica.ep", "8", "divide dp x tp (4)");
  }
  SECTION("ep must divide tp") {
    j["replica"] = {{"tp", 4}, {"ep", 3}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "replica.ep", "3", "divide dp x tp (4)");
  }
  SECTION("tp must fit one scale-up domain or span whole ones") {
    j["nodes"] = 3;
    j["replica"] = {{"tp", 12}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "replica.tp", "12", "scale-up");
    CHECK_THROWS_WITH(parse_deployment(j, "d.json"), Catch::Contains("(8 GPUs) or a whole number of domains"));
    j["nodes"] = 2;
    j["replica"] = {{"tp", 16}};  // two 8-GPU HGX nodes: the all-reduce crosses the NICs
    CHECK(parse_deployment(j, "d.json").replica.tp == 16);
  }
  SECTION("gpus_per_node override changes the total") {
    j["gpus_per_node"] = 6;
    j["replica"] = {{"tp", 4}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "replica.tp", "4", "6 GPUs");
  }
  SECTION("runtime must be known") {
    j["runtime"] = "tgi";
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "runtime", "\"tgi\"", "vllm, sglang, trtllm, deepinfer");
  }
  SECTION("router must be known") {
    j["router"] = "random";
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "router", "\"random\"",
                      "round_robin, least_outstanding, least_kv_load, power_of_two");
  }
  SECTION("nodes >= 1") {
    j["nodes"] = 0;
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "nodes", "0", ">= 1");
  }
  SECTION("nodes required") {
    j.erase("nodes");
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "nodes", "", "missing");
  }
  SECTION("scheduler ranges and keys") {
    j["scheduler"] = {{"gpu_memory_utilization", 1.5}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "scheduler.gpu_memory_utilization", "1.5", "(0, 1]");
    j["scheduler"] = {{"gpu_memory_utilization", 0}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "scheduler.gpu_memory_utilization", "0", "(0, 1]");
    j["scheduler"] = {{"max_num_seq", 10}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "scheduler.max_num_seq", "10", "max_num_seqs");
    j["scheduler"] = {{"max_num_seqs", 2.5}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "scheduler.max_num_seqs", "2.5", "expected an integer");
  }
  SECTION("unknown hardware preset lists the valid ones") {
    j["hardware"] = "no-such-gpu";
    CHECK_INPUT_ERROR(parse_deployment(j, "s.json", "deployment"), "deployment.hardware", "\"no-such-gpu\"",
                      "unknown hardware preset; valid:");
  }
  SECTION("hardware of the wrong type") {
    j["hardware"] = 5;
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "hardware", "5", "preset name");
  }
  SECTION("an error inside an embedded hardware names the full path") {
    j["hardware"]["nvlink_gb_per_s"] = -1;
    CHECK_INPUT_ERROR(parse_deployment(j, "s.json", "deployment"), "deployment.hardware.nvlink_gb_per_s", "-1", "> 0");
  }
}
