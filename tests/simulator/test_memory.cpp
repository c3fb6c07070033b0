// The memory model: what fits where, and the KV capacity that remains.
#include <catch2/catch.hpp>

#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/sglang_memory.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {
// An H100 80GB as CUDA reports it: 79.2 GiB.
constexpr double kH100Bytes = 79.2 * 1073741824.0;

specs::DeploymentSpec node(const std::string& hw, int tp) {
  specs::DeploymentSpec d;
  d.hardware = specs::hardware_preset(hw);
  d.nodes = 1;
  d.gpus_per_node = 8;
  d.replica = {tp, 1, tp};
  return d;
}
}  // namespace

TEST_CASE("DeepSeek-V3 in FP8 fits 8x H200 but not 8x H100", "[memory]") {
  const auto v3 = specs::model_preset("deepseek-v3");
  const auto h200 = simulator::plan_memory(v3, node("h200", 8));
  // ~671 GB of FP8 weights (the embedding and LM head in BF16) over 8 GPUs: about 85 GB each.
  CHECK(h200.weight_bytes / 1e9 == Approx(85.0).epsilon(0.05));
  CHECK(h200.fits());
  CHECK(h200.kv_capacity_tokens == Approx(h200.kv_bytes / (61 * 576.0)));
  const auto d100 = node("h100", 8);
  const auto h100 = simulator::plan_memory(v3, d100);
  CHECK_FALSE(h100.fits());
  CHECK_THROWS_AS(simulator::require_fits(h100, v3, d100, "s.json"), InputError);
  try {
    simulator::require_fits(h100, v3, d100, "s.json");
  } catch (const InputError& e) {
    CHECK(e.field() == "deployment.replica");
  }
}

TEST_CASE("the KV budget is what the utilisation share leaves after weights, activations and reserve", "[memory]") {
  const auto m = specs::model_preset("llama-3.1-8b");
  auto d = node("h100", 1);
  const auto p = simulator::plan_memory(m, d);
  CHECK(p.hbm_bytes == Approx(85.04e9).epsilon(0.001));  // CUDA's 79.2 GiB, not the datasheet's 80 x 1e9 bytes
  CHECK(p.kv_bytes == Approx(kH100Bytes * 0.9 - p.weight_bytes - p.activation_bytes - p.runtime_reserve_bytes));
  d.scheduler.gpu_memory_utilization = 0.5;
  const auto half = simulator::plan_memory(m, d);
  CHECK(p.kv_bytes - half.kv_bytes == Approx(kH100Bytes * 0.4));
  // KV blocks round a sequence up to whole blocks of 16 tokens.
  CHECK(simulator::kv_bytes_per_gpu(m, d, 17) == Approx(32 * simulator::kv_bytes_per_token(m)));
}

TEST_CASE("TensorRT-LLM's KV cache is a share of the memory the model leaves free, not of the whole HBM", "[memory]") {
  const auto m = specs::model_preset("llama-3.1-8b");
  auto d = node("h100", 1);
  d.scheduler.policy = specs::SchedulerPolicy::trtllm;
  const auto p = simulator::plan_memory(m, d);  // TensorRT-LLM's default: 0.9 of what is free
  const double used = p.weight_bytes + p.activation_bytes + p.runtime_reserve_bytes;
  CHECK(p.kv_bytes == Approx(0.9 * (kH100Bytes - used)));
  CHECK(p.budget_bytes == Approx(kH100Bytes));
  d.scheduler.gpu_memory_utilization = 0.5;  // not TensorRT-LLM's knob: no effect
  CHECK(simulator::plan_memory(m, d).kv_bytes == Approx(p.kv_bytes));
  d.scheduler.free_gpu_memory_fraction = 0.5;
  CHECK(simulator::plan_memory(m, d).kv_bytes == Approx(0.5 * (kH100Bytes - used)));
  d.scheduler.free_gpu_memory_fraction = 0.0;  // 0: sized as vLLM sizes it, from gpu_memory_utilization
  CHECK(simulator::plan_memory(m, d).kv_bytes == Approx(kH100Bytes * 0.5 - used));
  // A model whose weights leave nothing free does not fit, whatever the fraction.
  const auto v3 = specs::model_preset("deepseek-v3");
  auto h100 = node("h100", 8);
  h100.scheduler.policy = specs::SchedulerPolicy::trtllm;
  CHECK_FALSE(simulator::plan_memory(v3, h100).fits());
}

TEST_CASE("a GPU holds its TP share of the softmax KV and of the DeltaNet state, each split its own way", "[memory]") {
  const auto q35 = specs::model_preset("qwen3.5-397b-a17b");
  auto d = node("b200", 8);
  d.scheduler.kv_block_tokens = 16;
  // Softmax KV: 15 layers x 2 KV heads x 256 x 2 (K, V) x 2 B per token; its 2 heads over 8 ranks leave one per
  // GPU (half). DeltaNet state: 45 layers x (64 x 128 x 128 x 4 B + 12,288 conv channels x 3 x 2 B); its 64 value
  // heads over 8 ranks leave 8 per GPU (an eighth).
  const double kv_per_token = 15.0 * 2 * 256 * 2 * 2, state = 45.0 * (64.0 * 128 * 128 * 4 + 12288.0 * 3 * 2);
  CHECK(simulator::kv_bytes_per_gpu(q35, d, 1000) == Approx(1008 * kv_per_token / 2 + state / 8));  // 63 blocks
  CHECK(simulator::kv_bytes_per_gpu(q35, d, 0) == 0.0);  // no token, no state
}

// SGLang's default --mem-fraction-static by hand (server_args.py): an H100 as CUDA reports it is 79.2 GiB = 81,100.8
// MiB. Up to 0.5.2: (9.5 + tp x pp / 2) GiB reserved, 10 GiB at TP 1. From 0.5.3: 512 MiB + 1.5 x 8,192 (the H100's
// chunk) + 2 x 256 (its CUDA graphs below TP 4) + 1,024 / 8 = 13,440 MiB.
TEST_CASE("SGLang's default memory fraction follows its release's rule", "[memory][sglang]") {
  simulator::SglangServerMemory h100;
  h100.gpu_memory_mib = 79.2 * 1024.0;
  using Rule = simulator::SglangMemoryRule;
  CHECK(simulator::sglang_default_mem_fraction(h100, Rule::by_gpu_bucket) == Approx(0.874));  // 1 - 10,240 / 81,100.8
  CHECK(simulator::sglang_default_mem_fraction(h100, Rule::by_reserve) == Approx(0.834));     // 1 - 13,440 / 81,100.8
  h100.tp = 8;  // 13.5 GiB; 512 + 12,288 + 2 x 512 + 1,024 = 14,848 MiB
  CHECK(simulator::sglang_default_mem_fraction(h100, Rule::by_gpu_bucket) == Approx(0.830));
  CHECK(simulator::sglang_default_mem_fraction(h100, Rule::by_reserve) == Approx(0.817));
  // A launcher's --cuda-graph-bs 1..16 and a 4,096-token chunk: 512 + 6,144 + 32 + 128 = 6,816 MiB, raised to the
  // 10 GiB floor of a GPU above 60 GiB.
  simulator::SglangServerMemory small = {79.2 * 1024.0, 1, 1, 1, 4096, 16, false};
  CHECK(simulator::sglang_default_mem_fraction(small, Rule::by_reserve) == Approx(0.874));
  // Attention DP over 8 ranks of a B200 (178.35 GiB = 182,630 MiB), tp_size 8: 512 + 1.5 x 16,384 + 2 x 512 + 1,024
  // + 512 x 8 x 3 + 512 x 8 x 1.5 = 45,568 MiB; the old rule's 32 GiB + 4 GiB.
  simulator::SglangServerMemory b200 = {178.35 * 1024.0, 8, 1, 8, 0, 0, false};
  CHECK(simulator::sglang_default_mem_fraction(b200, Rule::by_reserve) == Approx(0.750));
  CHECK(simulator::sglang_default_mem_fraction(b200, Rule::by_gpu_bucket) == Approx(0.798));
}

TEST_CASE("SGLang's fraction holds the weights and KV cache only; activations live outside it", "[memory][sglang]") {
  const auto m = specs::model_preset("qwen3-32b");
  auto d = node("h100", 1);
  d.scheduler.policy = specs::SchedulerPolicy::sglang;
  d.scheduler.chunk_tokens = 8192;
  CHECK(simulator::memory_fraction(d) == Approx(0.834));  // SGLang's rule for this GPU and layout
  const auto p = simulator::plan_memory(m, d);
  // KV = fraction x (memory - 1 GB of CUDA context) - weights (ModelRunner.profile_max_num_token).
  CHECK(p.kv_bytes == Approx(0.834 * (kH100Bytes - 1e9) - p.weight_bytes));
  CHECK(p.activation_bytes == 0.0);
  d.scheduler.gpu_memory_utilization = 0.9;  // a launcher's --mem-fraction-static
  const auto given = simulator::plan_memory(m, d);
  CHECK(given.kv_bytes == Approx(0.9 * (kH100Bytes - 1e9) - given.weight_bytes));
  // vLLM's 0.9 takes the activations of its token budget and 2 GB of runtime from the same share.
  d.scheduler.policy = specs::SchedulerPolicy::vllm;
  d.scheduler.gpu_memory_utilization = -1.0;
  CHECK(simulator::memory_fraction(d) == 0.9);
  const auto vllm = simulator::plan_memory(m, d);
  CHECK(vllm.kv_bytes == Approx(0.9 * kH100Bytes - vllm.weight_bytes - vllm.activation_bytes - 2e9));
  CHECK(vllm.kv_bytes < given.kv_bytes);
}
