// deployment.scheduler: the policy, chunk size, preemption mode, swap space, TensorRT-LLM capacity policy, SGLang's
// mixed chunk and receive interval, and decode overhead share: defaults, round trips and bad input.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

namespace {

json with_scheduler(const json& scheduler) {
  json j = deployment_json();
  j["scheduler"] = scheduler;
  return j;
}

}  // namespace

TEST_CASE("scheduler policy defaults: vLLM, whole budget chunks, recompute, 4 GiB swap", "[specs][scheduler]") {
  const SchedulerSpec s = parse_deployment(deployment_json(), "d.json").scheduler;
  CHECK(s.policy == SchedulerPolicy::vllm);
  CHECK(s.chunk_tokens == 0);
  CHECK(s.chunk_limit() == 8192);
  CHECK(s.preemption == PreemptionMode::recompute);
  CHECK(s.swap_space_gib == 4.0);
  CHECK(s.swap_space_bytes() == 4.0 * 1024 * 1024 * 1024);
  CHECK(s.capacity == CapacityPolicy::guaranteed_no_evict);
  CHECK(s.decode_overhead_share() == 1.0);
  // TensorRT-LLM's CUDA-graph decode: half the host overhead unless given.
  CHECK(parse_deployment(with_scheduler({{"policy", "trtllm"}}), "d.json").scheduler.decode_overhead_share() == 0.5);
  CHECK(parse_deployment(with_scheduler({{"policy", "trtllm"}, {"decode_overhead_factor", 0.8}}), "d.json")
            .scheduler.decode_overhead_share() == 0.8);
}

TEST_CASE("a scheduler left out or without a policy takes the runtime's engine's", "[specs][scheduler]") {
  json j = deployment_json();
  const std::pair<const char*, SchedulerPolicy> engines[] = {{"vllm", SchedulerPolicy::vllm},
                                                             {"sglang", SchedulerPolicy::sglang},
                                                             {"trtllm", SchedulerPolicy::trtllm},
                                                             {"atom", SchedulerPolicy::atom},
                                                             {"deepinfer", SchedulerPolicy::vllm}};
  for (const auto& [runtime, policy] : engines) {
    INFO(runtime);
    j["runtime"] = runtime;
    j["hardware"]["arch"] = policy == SchedulerPolicy::atom ? "gfx942" : "sm_90";  // ATOM runs on AMD GPUs only
    const SchedulerSpec none = parse_deployment(j, "d.json").scheduler;
    CHECK(none.policy == policy);
    CHECK(none.chunked_prefill == (policy != SchedulerPolicy::atom));  // ATOM prefills each prompt whole
    json given = j;
    given["scheduler"] = {{"max_num_seqs", 64}};
    CHECK(parse_deployment(given, "d.json").scheduler.policy == policy);
  }
  // A policy given is kept whatever the runtime, and its chunking default follows it.
  j["runtime"] = "atom";
  j["hardware"]["arch"] = "gfx942";
  j["scheduler"] = {{"policy", "vllm"}};
  const SchedulerSpec vllm = parse_deployment(j, "d.json").scheduler;
  CHECK(vllm.policy == SchedulerPolicy::vllm);
  CHECK(vllm.chunked_prefill);
}

TEST_CASE("every scheduler policy field round-trips", "[specs][scheduler][roundtrip]") {
  const json variants[] = {
      {{"policy", "sglang"}, {"chunk_tokens", 2048}, {"preemption", "swap"}, {"swap_space_gib", 16}},
      {{"policy", "trtllm"}, {"capacity_policy", "max_utilization"}, {"decode_overhead_factor", 0.25}},
      {{"policy", "trtllm"}},
      {{"policy", "vllm"}, {"preemption", "swap"}, {"swap_space_gib", 0}},
      // SGLang's chunked_prefill_size may exceed its max_prefill_tokens: two independent limits there.
      {{"policy", "sglang"}, {"mixed_chunk", true}, {"max_num_batched_tokens", 2524}, {"chunk_tokens", 8192}},
      {{"policy", "sglang"}, {"recv_interval", 30}},
      {{"policy", "trtllm"}, {"chunked_prefill", false}, {"batch_wait_iters", 20}, {"batch_wait_tokens_ratio", 0.9}},
      {{"policy", "atom"}, {"chunked_prefill", false}, {"max_num_batched_tokens", 16384}},
  };
  for (const json& v : variants) {
    const DeploymentSpec d = parse_deployment(with_scheduler(v), "d.json");
    const json out = to_json(d);
    for (const auto& [key, value] : v.items()) CHECK(out["scheduler"][key] == value);
    CHECK(parse_deployment(out, "echo") == d);
  }
  const SchedulerSpec s = parse_deployment(with_scheduler(variants[0]), "d.json").scheduler;
  CHECK(s.policy == SchedulerPolicy::sglang);
  CHECK(s.chunk_limit() == 2048);
  CHECK(s.preemption == PreemptionMode::swap);
  CHECK(to_json(parse_deployment(deployment_json(), "d.json"))["scheduler"]["capacity_policy"].is_null());
}

TEST_CASE("an engine on a GPU of another maker is refused, naming the runtime and the GPU", "[specs][scheduler]") {
  json j = deployment_json();  // an sm_90 test GPU
  j["runtime"] = "atom";
  CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.runtime", "atom",
                    "ATOM (ROCm) runs on AMD GPUs only; sm_90 is NVIDIA's (hardware hw-test)");
  j["hardware"]["arch"] = "gfx950";
  j["runtime"] = "trtllm";
  CHECK_INPUT_ERROR(parse_deployment(j, "d.json", "deployment"), "deployment.runtime", "trtllm",
                    "TensorRT-LLM (CUDA) runs on NVIDIA GPUs only; gfx950 is AMD's");
  for (const char* ok : {"vllm", "sglang", "deepinfer"}) {
    j["runtime"] = ok;
    CHECK_NOTHROW(parse_deployment(j, "d.json"));
  }
  j["hardware"]["arch"] = "npu_x1";  // a maker the presets do not know: not refused
  j["runtime"] = "trtllm";
  CHECK_NOTHROW(parse_deployment(j, "d.json"));
}

TEST_CASE("bad scheduler policy input names the field", "[specs][scheduler]") {
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"policy", "orca"}}), "d.json", "deployment"),
                    "deployment.scheduler.policy", "orca", "valid: vllm, sglang, trtllm, atom");
  // ATOM neither chunks a prompt nor swaps: a spec asking it to is refused, not quietly changed.
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"policy", "atom"}, {"chunked_prefill", true}}), "d.json"),
                    "scheduler.chunked_prefill", "", "must be false with policy atom");
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "atom"}, {"chunked_prefill", false}, {"preemption", "swap"}}),
                       "d.json"),
      "scheduler.preemption", "", "must be recompute with policy atom");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"chunk_tokens", 9000}}), "d.json"), "scheduler.chunk_tokens",
                    "9000", "<= max_num_batched_tokens (8192)");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"chunk_tokens", -1}}), "d.json"), "scheduler.chunk_tokens", "-1",
                    ">= 0");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"chunked_prefill", false}, {"chunk_tokens", 512}}), "d.json"),
                    "scheduler.chunk_tokens", "512", "needs chunked_prefill");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"preemption", "evict"}}), "d.json"), "scheduler.preemption",
                    "evict", "valid: recompute, swap");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"swap_space_gib", -2}}), "d.json"), "scheduler.swap_space_gib",
                    "-2", "[0, 1e6]");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"capacity_policy", "max_utilization"}}), "d.json"),
                    "scheduler.capacity_policy", "max_utilization", "only to policy trtllm");
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "trtllm"}, {"capacity_policy", "static_batch"}}), "d.json"),
      "scheduler.capacity_policy", "static_batch", "valid: guaranteed_no_evict, max_utilization");
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "trtllm"}, {"chunk_tokens", 8}, {"kv_block_tokens", 16}}), "d.json"),
      "scheduler.chunk_tokens", "8", ">= kv_block_tokens (16)");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"decode_overhead_factor", 1.5}}), "d.json"),
                    "scheduler.decode_overhead_factor", "1.5", "[0, 1]");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"policy", "trtllm"}, {"mixed_chunk", true}}), "d.json"),
                    "scheduler.mixed_chunk", "true", "only to policy sglang");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"recv_interval", 10}}), "d.json"), "scheduler.recv_interval",
                    "10", "only to policy sglang");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"policy", "sglang"}, {"recv_interval", 0}}), "d.json"),
                    "scheduler.recv_interval", "0", ">= 1");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"batch_wait_iters", 20}}), "d.json"),
                    "scheduler.batch_wait_iters", "20", "only to policy trtllm");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"policy", "trtllm"}, {"batch_wait_iters", -1}}), "d.json"),
                    "scheduler.batch_wait_iters", "-1", ">= 0");
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "trtllm"}, {"batch_wait_tokens_ratio", 1.5}}), "d.json"),
      "scheduler.batch_wait_tokens_ratio", "1.5", "[0, 1]");
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "sglang"}, {"batch_wait_tokens_ratio", 0.5}}), "d.json"),
      "scheduler.batch_wait_tokens_ratio", "0.5", "only to policy trtllm");
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "trtllm"}, {"max_num_batched_tokens", 2048}, {"chunk_tokens", 4096}}),
                       "d.json"),
      "scheduler.chunk_tokens", "4096", "<= max_num_batched_tokens (2048)");
}

TEST_CASE("attention_dp_balance: TensorRT-LLM's defaults, a round trip, and refused without trtllm or attention DP",
          "[specs][scheduler]") {
  json j = with_scheduler({{"policy", "trtllm"}, {"attention_dp_balance", json::object()}});
  j["replica"] = {{"tp", 1}, {"dp", 4}};
  const DeploymentSpec d = parse_deployment(j, "d.json");
  CHECK(d.scheduler.adp_balance);
  CHECK(d.scheduler.adp_timeout_iters == 50);  // attention_dp_config's defaults
  CHECK(d.scheduler.adp_batching_wait_iters == 10);
  j["scheduler"]["attention_dp_balance"] = {{"timeout_iters", 60}, {"batching_wait_iters", 0}};
  const DeploymentSpec set = parse_deployment(j, "d.json");
  CHECK(set.scheduler.adp_timeout_iters == 60);
  CHECK(set.scheduler.adp_batching_wait_iters == 0);
  CHECK(to_json(set)["scheduler"]["attention_dp_balance"] == j["scheduler"]["attention_dp_balance"]);
  CHECK(parse_deployment(to_json(set), "echo") == set);
  CHECK(to_json(parse_deployment(deployment_json(), "d.json"))["scheduler"]["attention_dp_balance"].is_null());

  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"attention_dp_balance", json::object()}}), "d.json"),
                    "scheduler.attention_dp_balance", "", "only to policy trtllm");
  // deployment_json's replica is tp 4 without attention DP: nothing to balance.
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "trtllm"}, {"attention_dp_balance", json::object()}}), "d.json"),
      "scheduler", "", "needs attention data parallelism (replica.dp > 1; dp is 1)");
  json waits = j;
  waits["scheduler"]["batch_wait_iters"] = 20;
  CHECK_INPUT_ERROR(parse_deployment(waits, "d.json"), "scheduler", "", "only without attention data parallelism");
  j["scheduler"]["attention_dp_balance"] = {{"timeout_iters", -1}};
  CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "scheduler.attention_dp_balance.timeout_iters", "-1", ">= 0");
  j["scheduler"]["attention_dp_balance"] = {{"timeout", 5}};
  CHECK_THROWS_AS(parse_deployment(j, "d.json"), fleetcast::InputError);  // an unknown key is named, not ignored
}

TEST_CASE("prefill_delayer: SGLang's 30 passes, a round trip, and refused without sglang or attention DP",
          "[specs][scheduler]") {
  json j = with_scheduler({{"policy", "sglang"}, {"prefill_delayer", json::object()}});
  j["replica"] = {{"tp", 1}, {"dp", 8}};
  const DeploymentSpec d = parse_deployment(j, "d.json");
  CHECK(d.scheduler.prefill_delayer);
  CHECK(d.scheduler.prefill_delayer_max_delay_passes == 30);  // --prefill-delayer-max-delay-passes' default
  j["scheduler"]["prefill_delayer"] = {{"max_delay_passes", 100}};
  const DeploymentSpec set = parse_deployment(j, "d.json");
  CHECK(set.scheduler.prefill_delayer_max_delay_passes == 100);
  CHECK(to_json(set)["scheduler"]["prefill_delayer"] == j["scheduler"]["prefill_delayer"]);
  CHECK(parse_deployment(to_json(set), "echo") == set);
  CHECK(to_json(parse_deployment(deployment_json(), "d.json"))["scheduler"]["prefill_delayer"].is_null());

  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"prefill_delayer", json::object()}}), "d.json"),
                    "scheduler.prefill_delayer", "", "only to policy sglang");
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "sglang"}, {"prefill_delayer", json::object()}}), "d.json"),
      "scheduler", "", "prefill_delayer needs attention data parallelism (replica.dp > 1; dp is 1)");
  j["scheduler"]["prefill_delayer"] = {{"max_delay_passes", 0}};
  CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "scheduler.prefill_delayer.max_delay_passes", "0", ">= 1");
  j["scheduler"]["prefill_delayer"] = {{"passes", 5}};
  CHECK_THROWS_AS(parse_deployment(j, "d.json"), fleetcast::InputError);  // an unknown key is named, not ignored
}

TEST_CASE("free_gpu_memory_fraction: TensorRT-LLM's 0.9 by default, a round trip, refused without trtllm",
          "[specs][scheduler]") {
  CHECK(parse_deployment(with_scheduler({{"policy", "trtllm"}}), "d.json").scheduler.kv_free_memory_fraction() == 0.9);
  CHECK(parse_deployment(deployment_json(), "d.json").scheduler.kv_free_memory_fraction() == 0.0);
  const json j = with_scheduler({{"policy", "trtllm"}, {"free_gpu_memory_fraction", 0.5}});
  const DeploymentSpec set = parse_deployment(j, "d.json");
  CHECK(set.scheduler.kv_free_memory_fraction() == 0.5);
  CHECK(to_json(set)["scheduler"]["free_gpu_memory_fraction"] == 0.5);
  CHECK(parse_deployment(to_json(set), "echo") == set);
  CHECK(parse_deployment(with_scheduler({{"policy", "trtllm"}, {"free_gpu_memory_fraction", 0}}), "d.json")
            .scheduler.kv_free_memory_fraction() == 0.0);
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"free_gpu_memory_fraction", 0.5}}), "d.json"),
                    "scheduler.free_gpu_memory_fraction", "0.5", "only to policy trtllm");
  CHECK_INPUT_ERROR(
      parse_deployment(with_scheduler({{"policy", "trtllm"}, {"free_gpu_memory_fraction", 1.5}}), "d.json"),
      "scheduler.free_gpu_memory_fraction", "1.5", "(0, 1]");
}

TEST_CASE("api_servers: vLLM's one per DP rank by default (0), a round trip, refused without vllm",
          "[specs][scheduler]") {
  CHECK(parse_deployment(deployment_json(), "d.json").scheduler.api_servers == 0);
  const DeploymentSpec set = parse_deployment(with_scheduler({{"api_servers", 2}}), "d.json");
  CHECK(set.scheduler.api_servers == 2);
  CHECK(to_json(set)["scheduler"]["api_servers"] == 2);
  CHECK(parse_deployment(to_json(set), "echo") == set);
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"policy", "sglang"}, {"api_servers", 2}}), "d.json"),
                    "scheduler.api_servers", "2", "only to policy vllm");
  CHECK_INPUT_ERROR(parse_deployment(with_scheduler({{"api_servers", -1}}), "d.json"), "scheduler.api_servers", "-1",
                    ">= 0");
}
