// Mapping measured rows to scenarios: the server settings a row's launcher gave the engine (step budgets, chunks,
// blocks, memory, KV format, running caps, waiting rules) replace the engine's defaults in the scheduler.
#include <catch2/catch.hpp>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "serving_mapping_support.hpp"

using namespace fleetcast;
using test::agg_run;
using test::mapped;

TEST_CASE("mapping: a row's server settings replace the engine's default step budget", "[validation]") {
  auto r = agg_run("Qwen/Qwen3-32B", "h100_sxm", "trtllm", {16, 0, 1, 1, 1, 1, 1});
  const auto by_default = specs::parse_scenario(mapped(r).scenario, "row");
  CHECK(by_default.deployment.scheduler.max_num_batched_tokens == 8192);
  r.server_whole_prompts = true;
  r.server_max_num_tokens = 3040;
  const auto s = specs::parse_scenario(mapped(r).scenario, "row");
  CHECK(s.deployment.scheduler.max_num_batched_tokens == 3040);
  CHECK_FALSE(s.deployment.scheduler.chunked_prefill);
  auto g = agg_run("Qwen/Qwen3-32B", "h200_sxm", "sglang", {16, 0, 1, 1, 1, 1, 1});
  CHECK_FALSE(specs::parse_scenario(mapped(g).scenario, "row").deployment.scheduler.mixed_chunk);
  g.server_mixed_chunk = true;
  g.server_recv_interval = 30;
  CHECK(specs::parse_scenario(mapped(g).scenario, "row").deployment.scheduler.chunk_tokens == 8192);
  g.server_chunk_tokens = 131072;  // SGLang's --chunked-prefill-size, in place of its default for the GPU
  const auto sg = specs::parse_scenario(mapped(g).scenario, "row");
  CHECK(sg.deployment.scheduler.mixed_chunk);
  CHECK(sg.deployment.scheduler.recv_interval == 30);
  CHECK(sg.deployment.scheduler.chunk_tokens == 131072);
  auto t = agg_run("meta-llama/Llama-3.1-70B", "h200_sxm", "trtllm", {16, 0, 4, 1, 1, 1, 1});
  CHECK(specs::parse_scenario(mapped(t).scenario, "row").deployment.scheduler.batch_wait_iters == 0);
  t.server_batch_wait_iters = 20;
  t.server_batch_wait_tokens_ratio = 0.9;
  const auto bw = specs::parse_scenario(mapped(t).scenario, "row").deployment.scheduler;
  CHECK(bw.batch_wait_iters == 20);
  CHECK(bw.batch_wait_tokens_ratio == 0.9);
  // vLLM's --block-size and --gpu-memory-utilization, as InferenceX's DeepSeek-V4 scripts give them.
  auto v = agg_run("deepseek-ai/DeepSeek-V4-Pro", "h200_sxm", "vllm", {16, 0, 8, 1, 1, 8, 1});
  const auto plain = specs::parse_scenario(mapped(v).scenario, "row").deployment.scheduler;
  v.server_max_num_tokens = 512;
  v.server_kv_block_tokens = 256;
  v.server_gpu_memory_utilization = 0.95;
  const auto v4 = specs::parse_scenario(mapped(v).scenario, "row").deployment.scheduler;
  CHECK(v4.max_num_batched_tokens == 512);
  CHECK(v4.kv_block_tokens == 256);
  CHECK(v4.gpu_memory_utilization == 0.95);
  CHECK(plain.kv_block_tokens != 256);
  CHECK(plain.gpu_memory_utilization != 0.95);
  // The KV cache's format as the server was started wins over the FP8 a quantized row is given.
  auto o = agg_run("openai/gpt-oss-120b", "h100_sxm", "vllm", {16, 0, 2, 1, 1, 2, 1});
  o.gemm_quant_mode = o.moe_quant_mode = "nvfp4";  // as the CSV labels gpt-oss's rows
  CHECK(specs::parse_scenario(mapped(o).scenario, "row").model.precision.kv_cache == specs::Precision::fp8);
  o.server_kv_cache = "bf16";
  CHECK(specs::parse_scenario(mapped(o).scenario, "row").model.precision.kv_cache == specs::Precision::bf16);
  // --max-running-requests below the clients caps the running batch; above them it changes nothing.
  auto c = agg_run("Qwen/Qwen3-32B", "h200_sxm", "sglang", {256, 0, 1, 1, 1, 1, 1});
  c.server_max_running = 128;
  CHECK(specs::parse_scenario(mapped(c).scenario, "row").deployment.scheduler.max_num_seqs == 128);
  c.server_max_running = 512;
  CHECK(specs::parse_scenario(mapped(c).scenario, "row").deployment.scheduler.max_num_seqs == 256);
  // SGLang divides --max-running-requests among its attention-DP ranks (ModelRunner.max_running_requests), and its
  // prefill delayer, which needs them, comes along.
  auto dp = agg_run("Qwen/Qwen3-235B-A22B-FP8", "h200_sxm", "sglang", {32, 0, 1, 1, 8, 1, 8});
  dp.concurrency = 256;
  dp.server_max_running = 96;
  dp.server_prefill_delayer = true;
  const auto ranks = specs::parse_scenario(mapped(dp).scenario, "row").deployment.scheduler;
  CHECK(ranks.max_num_seqs == 12);
  CHECK(ranks.prefill_delayer);
  CHECK(ranks.prefill_delayer_max_delay_passes == 30);
  // TensorRT-LLM's KV share of free memory as the launcher set it; unset, the policy's default (0.9) stays.
  auto trt = agg_run("Qwen/Qwen3-32B", "h100_sxm", "trtllm", {16, 0, 2, 1, 1, 1, 1});
  CHECK(specs::parse_scenario(mapped(trt).scenario, "row").deployment.scheduler.kv_free_memory_fraction() == 0.9);
  trt.server_free_gpu_memory_fraction = 0.8;
  CHECK(specs::parse_scenario(mapped(trt).scenario, "row").deployment.scheduler.kv_free_memory_fraction() == 0.8);
  c.server_free_gpu_memory_fraction = 0.8;  // not a TensorRT-LLM row: SGLang sizes its cache from its own fraction
  CHECK(specs::parse_scenario(mapped(c).scenario, "row").deployment.scheduler.kv_free_memory_fraction() == 0.0);
  c.server_prefill_delayer = true;  // one rank: nothing to negotiate
  CHECK_FALSE(specs::parse_scenario(mapped(c).scenario, "row").deployment.scheduler.prefill_delayer);
  // vLLM's index_topk_freq on MiniMax-M3: of its 57 sparse layers, 3, 7, ..., 59 run the indexer (15), the rest reuse.
  auto m3 = agg_run("MiniMaxAI/MiniMax-M3-MXFP8", "h200_sxm", "vllm", {16, 0, 8, 1, 1, 8, 1});
  CHECK(specs::parse_scenario(mapped(m3).scenario, "row").model.attention.indexer_layers == 0);
  m3.server_index_topk_freq = 4;
  const auto reuse = specs::parse_scenario(mapped(m3).scenario, "row").model.attention;
  CHECK(reuse.sparse_layers == 57);
  CHECK(reuse.indexer_layers == 15);
}

// SGLang's default --mem-fraction-static, where the launcher gave none, by the row's release and the server it ran
// (hand values in tests/simulator/test_memory.cpp): an H100 (79.2 GiB) at TP 1.
TEST_CASE("mapping: an SGLang row without a memory fraction takes its release's default", "[validation]") {
  auto r = agg_run("Qwen/Qwen3-32B", "h100_sxm", "sglang", {16, 0, 1, 1, 1, 1, 1});
  r.backend_version = "0.5.1.post1";  // a reserve by GPU bucket: 10 GiB at TP 1
  CHECK(specs::parse_scenario(mapped(r).scenario, "row").deployment.scheduler.gpu_memory_utilization == 0.874);
  r.backend_version = "0.5.8.post1";  // 512 + 1.5 x 8,192 + 2 x 256 + 128 = 13,440 MiB
  CHECK(specs::parse_scenario(mapped(r).scenario, "row").deployment.scheduler.gpu_memory_utilization == 0.834);
  r.backend_version = "nightly-dev";  // no release number: the current rule
  CHECK(specs::parse_scenario(mapped(r).scenario, "row").deployment.scheduler.gpu_memory_utilization == 0.834);
  r.server_cuda_graph_max_bs = 16;  // --cuda-graph-bs 1..16: 512 + 12,288 + 32 + 128 = 12,960 MiB
  CHECK(specs::parse_scenario(mapped(r).scenario, "row").deployment.scheduler.gpu_memory_utilization == 0.840);
  r.server_gpu_memory_utilization = 0.8;  // a launcher's own fraction wins
  CHECK(specs::parse_scenario(mapped(r).scenario, "row").deployment.scheduler.gpu_memory_utilization == 0.8);
  auto v = agg_run("Qwen/Qwen3-32B", "h100_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1});  // vLLM: the policy's 0.9
  CHECK(specs::parse_scenario(mapped(v).scenario, "row").deployment.scheduler.gpu_memory_utilization < 0.0);
}
