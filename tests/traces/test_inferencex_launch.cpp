// InferenceX's launch rules (traces/src/inferencex_launch.cpp): a row its provenance names as InferenceX's carries
// the step budgets, chunk and block sizes, memory fractions and KV formats its launch script for that model, engine
// and GPU passes, and another engine's or GPU's row keeps the defaults.
#include <catch2/catch.hpp>

#include "fleetcast/traces/serving_results.hpp"
#include "silicon_rows.hpp"

using namespace fleetcast;
using test::inferencex_source;
using test::kInferenceXHeader;
using test::parse_rows;

TEST_CASE("silicon CSV: InferenceX's Qwen3.5 SGLang rows poll for requests as each GPU's and precision's script says",
          "[traces][silicon]") {
  const std::string header =
      "id,silicon_data_source,backend,model_path,system,precision,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,"
      "silicon_tpot_ms";
  const auto row = [](const std::string& id, const std::string& system, const std::string& precision, int clients,
                      const std::string& model = "Qwen/Qwen3.5-397B-A17B") {
    const std::string c = std::to_string(clients);
    return id + ",db-dump/2026-04-27; config_id=1; silicon_concurrency=" + c + "; workflow_run_id=2,sglang," + model +
           "," + system + "," + precision + ",agg,1024,1024," + c + ",4,1,1";
  };
  const std::string rows[] = {row("b200fp8", "b200_sxm", "fp8", 8),   row("b200fp8c4", "b200_sxm", "fp8", 4),
                              row("b200bf16", "b200_sxm", "bf16", 8), row("b300fp4", "b300_sxm", "fp4", 16),
                              row("b300fp8", "b300_sxm", "fp8", 64),  row("h200fp8", "h200_sxm", "fp8", 8),
                              row("other", "b200_sxm", "fp8", 8, "m")};
  const auto r = parse_rows(header, rows);
  REQUIRE(r.runs.size() == 7);
  // B200 FP8 and FP4: 30 above 4 clients, else 10; B200 BF16, B300 FP4 and BF16: 30 from 16 clients, else 10;
  // B300 FP8: always 10; H200 FP8: SGLang's default; another model's script: not read, the default.
  const int expected[] = {30, 10, 10, 30, 10, 0, 0};
  for (std::size_t i = 0; i < 7; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_recv_interval == expected[i]);
    CHECK((r.runs[i].notes.find("--scheduler-recv-interval") != std::string::npos) == (expected[i] > 0));
  }
}

TEST_CASE("silicon CSV: InferenceX's Llama-3.1-70B TensorRT-LLM rows run as its scripts start the server",
          "[traces][silicon]") {
  const std::string header =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,"
      "silicon_tpot_ms";
  const std::string ix = "source_file=2026-04-06.csv; model=Llama-3.1-70B; silicon_concurrency=8; wip=False";
  const std::string rows[] = {"tp4," + ix + ",trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,8,4,1,1",
                              "tp8," + ix + ",trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,8,8,1,1",
                              "long," + ix + ",trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,8192,1024,8,4,1,1",
                              "vllm," + ix + ",vllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,8,4,1,1",
                              "oss," + ix + ",trtllm,openai/gpt-oss-120b,h200_sxm,agg,1024,1024,8,4,1,1"};
  const auto r = parse_rows(header, rows);
  REQUIRE(r.runs.size() == 5);
  // trtllm-serve --max_num_tokens 16384 without chunked prefill on every row of the model; the batch waiting of
  // its 1k/1k configuration only below TP 8.
  for (std::size_t i : {0u, 1u, 2u}) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_whole_prompts);
    CHECK(r.runs[i].server_max_num_tokens == 16384);
  }
  CHECK(r.runs[0].server_batch_wait_iters == 20);
  CHECK(r.runs[0].server_batch_wait_tokens_ratio == 0.9);
  CHECK(r.runs[0].notes.find("batch_wait_timeout_iters 20") != std::string::npos);
  CHECK(r.runs[1].server_batch_wait_iters == 0);
  CHECK(r.runs[2].server_batch_wait_iters == 0);
  // Another engine, or another model's script: the engine's defaults.
  for (std::size_t i : {3u, 4u}) {
    INFO(r.runs[i].id);
    CHECK_FALSE(r.runs[i].server_whole_prompts);
    CHECK(r.runs[i].server_max_num_tokens == 0);
    CHECK(r.runs[i].server_batch_wait_iters == 0);
  }
}

TEST_CASE("silicon CSV: InferenceX's DeepSeek-R1 SGLang rows on AMD GPUs prefill as its scripts start the server",
          "[traces][silicon]") {
  const std::string header =
      "id,silicon_data_source,backend,model_path,system,precision,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,"
      "silicon_tpot_ms";
  const auto ix = [](int clients) {
    return "source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency=" + std::to_string(clients) +
           "; wip=False";
  };
  const std::string r1 = "deepseek-ai/DeepSeek-R1-0528";
  const std::string rows[] = {
      "mi300x," + ix(64) + ",sglang," + r1 + ",mi300x,fp8,agg,8192,1024,64,8,1,1",
      "mi325x," + ix(64) + ",sglang," + r1 + ",MI325X,fp8,agg,8192,1024,64,8,1,1",
      "mi355x," + ix(64) + ",sglang," + r1 + ",mi355x,fp8,agg,8192,1024,64,8,1,1",
      "fp4-32," + ix(32) + ",sglang,amd/DeepSeek-R1-0528-MXFP4,mi355x,fp4,agg,8192,1024,32,8,1,1",
      "fp4-64," + ix(64) + ",sglang,amd/DeepSeek-R1-0528-MXFP4,mi355x,fp4,agg,8192,1024,64,8,1,1",
      "h200," + ix(64) + ",sglang," + r1 + ",h200_sxm,fp8,agg,8192,1024,64,8,1,1",
      "vllm," + ix(64) + ",vllm," + r1 + ",mi355x,fp8,agg,8192,1024,64,8,1,1"};
  const auto r = parse_rows(header, rows);
  REQUIRE(r.runs.size() == 7);
  // --chunked-prefill-size = --max-prefill-tokens: 131072 on MI300X and MI325X, 196608 on MI355X, 32768 for its
  // FP4 script at 8k/1k above 32 clients; H200 takes its own script's 32768 (below); another engine's row keeps the
  // defaults.
  const int expected[] = {131072, 131072, 196608, 196608, 32768, 32768, 0};
  for (std::size_t i = 0; i < 7; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_chunk_tokens == expected[i]);
    CHECK(r.runs[i].server_max_num_tokens == expected[i]);
    CHECK((r.runs[i].notes.find("--num-continuous-decode-steps: read nowhere in SGLang since #2095") !=
           std::string::npos) == (i < 5));
  }
}

TEST_CASE("silicon CSV: InferenceX's DeepSeek-R1 rows on NVIDIA GPUs take its scripts' budgets, caps and KV",
          "[traces][silicon]") {
  const std::string r1 = "deepseek-ai/DeepSeek-R1-0528", fp4 = "nvidia/DeepSeek-R1-0528-FP4-v2";
  const std::string rows[] = {
      "h200-1k," + inferencex_source(64) + ",sglang," + r1 + ",h200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "h200-8k," + inferencex_source(64) + ",sglang," + r1 + ",h200_sxm,fp8,agg,8192,1024,64,8,1,1,1",
      "b200-tp8," + inferencex_source(8) + ",sglang," + r1 + ",b200_sxm,fp8,agg,1024,1024,8,8,1,1,1",
      "b300-tp4," + inferencex_source(64) + ",sglang," + r1 + ",b300,fp8,agg,8192,1024,64,4,1,1,1",
      "b200-fp4," + inferencex_source(64) + ",sglang," + fp4 + ",b200_sxm,fp4,agg,1024,1024,64,8,1,1,1",
      "trt-h200," + inferencex_source(64) + ",trtllm," + r1 + ",h200_sxm,fp8,agg,8192,1024,64,8,1,1,1",
      "trt-b200-wait," + inferencex_source(64) + ",trtllm," + r1 + ",b200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "trt-b200-fp4," + inferencex_source(64) + ",trtllm," + fp4 + ",b200_sxm,fp4,agg,1024,1024,64,8,1,1,1"};
  const auto r = parse_rows(kInferenceXHeader, rows);
  REQUIRE(r.runs.size() == 8);
  // TensorRT-LLM: clients + ISL + 64 rounded up to 64 (64 + 8192 + 64 = 8320), at least 8192.
  const int budget[] = {32768, 32768, 32768, 8192, 0, 8320, 8192, 8192};
  const int chunk[] = {32768, 32768, 32768, 8192, 16384, 0, 0, 0};
  const int running[] = {512, 256, 128, 32, 256, 0, 0, 0};
  const int recv[] = {0, 0, 10, 10, 30, 0, 0, 0};
  const double memory[] = {0.82, 0.82, 0.82, 0.95, 0.85, 0, 0, 0};
  const char* kv[] = {"bf16", "bf16", "fp8", "fp8", "fp8", "fp8", "fp8", "fp8"};
  for (std::size_t i = 0; i < 8; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_max_num_tokens == budget[i]);
    CHECK(r.runs[i].server_chunk_tokens == chunk[i]);
    CHECK(r.runs[i].server_max_running == running[i]);
    CHECK(r.runs[i].server_recv_interval == recv[i]);
    CHECK(r.runs[i].server_gpu_memory_utilization == memory[i]);
    CHECK(r.runs[i].server_kv_cache == kv[i]);
    CHECK(r.runs[i].server_whole_prompts == (i >= 5));
    CHECK(r.runs[i].server_batch_wait_iters == (i == 6 ? 40 : 0));  // FP8 on B200 at 1k/1k from 64 clients
  }
  // FP8 at 8,192 x 1,024 on TP 4 keeps 0.75 of the free memory for KV, the other Blackwell rows 0.8, H200 0.75;
  // SGLang's rows leave TensorRT-LLM's knob alone.
  CHECK(r.runs[5].server_free_gpu_memory_fraction == 0.75);
  CHECK(r.runs[0].server_free_gpu_memory_fraction == 0.0);
  const std::string tp4_rows[] = {"trt-b200-tp4," + inferencex_source(64) + ",trtllm," + r1 +
                                  ",b200_sxm,fp8,agg,8192,1024,64,4,1,1,1"};
  CHECK(parse_rows(kInferenceXHeader, tp4_rows).runs.at(0).server_free_gpu_memory_fraction == 0.75);
  CHECK(r.runs[7].server_free_gpu_memory_fraction == 0.8);
}

TEST_CASE("silicon CSV: InferenceX's DeepSeek-V4 vLLM rows take its scripts' step budget, block size and memory",
          "[traces][silicon]") {
  const std::string pro = "deepseek-ai/DeepSeek-V4-Pro", flash = "deepseek-ai/DeepSeek-V4-Flash-0731";
  const std::string rows[] = {
      "h200," + inferencex_source(64) + ",vllm," + pro + ",h200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "b200-8k-128," + inferencex_source(128) + ",vllm," + pro + ",b200_sxm,fp4,agg,8192,1024,128,8,1,1,1",
      "b200-8k-256," + inferencex_source(256) + ",vllm," + pro + ",b200_sxm,fp4,agg,8192,1024,256,8,1,1,1",
      "b200-1k," + inferencex_source(16) + ",vllm," + pro + ",b200_sxm,fp4,agg,1024,1024,16,8,1,1,1",
      "b300-tp," + inferencex_source(16) + ",vllm," + pro + ",b300,fp4,agg,8192,1024,16,8,1,1,1",
      "b300-dp," + inferencex_source(64) + ",vllm," + pro + ",b300,fp4,agg,1024,1024,8,1,8,1,1",
      "flash," + inferencex_source(64) + ",vllm," + flash + ",b200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "mi355x," + inferencex_source(64) + ",vllm," + pro + ",mi355x,fp4,agg,1024,1024,64,8,1,1,1",
      "trtllm," + inferencex_source(64) + ",trtllm," + pro + ",h200_sxm,fp8,agg,1024,1024,64,8,1,1,1"};
  const auto r = parse_rows(kInferenceXHeader, rows);
  REQUIRE(r.runs.size() == 9);
  // H200 512; B200 8,192 at 8k prompts up to 128 clients, else 2,048; B300 twice the prompt under TP, 2,048 under
  // attention DP; V4-Flash 8,192; MI355X and another engine keep the defaults.
  const int budget[] = {512, 8192, 2048, 2048, 16384, 2048, 8192, 0, 0};
  const int block[] = {256, 256, 256, 256, 256, 256, 256, 0, 0};
  const double memory[] = {0.95, 0, 0, 0, 0, 0, 0.95, 0.8, 0};
  for (std::size_t i = 0; i < 9; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_max_num_tokens == budget[i]);
    CHECK(r.runs[i].server_kv_block_tokens == block[i]);
    CHECK(r.runs[i].server_gpu_memory_utilization == memory[i]);
    CHECK((r.runs[i].notes.find("DeepSeek-V4 scripts") != std::string::npos) == (i < 8));
  }
}

TEST_CASE("silicon CSV: InferenceX's DeepSeek-V4-Pro SGLang and TensorRT-LLM rows take its scripts' settings",
          "[traces][silicon]") {
  const std::string pro = "deepseek-ai/DeepSeek-V4-Pro";
  const std::string rows[] = {
      "b200-tp," + inferencex_source(64) + ",sglang," + pro + ",b200_sxm,fp4,agg,1024,1024,64,8,1,1,1",
      "b200-dp," + inferencex_source(64) + ",sglang," + pro + ",b200_sxm,fp4,agg,1024,1024,8,1,8,1,1",
      "b300-dp-4096," + inferencex_source(4096) + ",sglang," + pro + ",b300,fp4,agg,1024,1024,512,1,8,1,1",
      "b300-dp-64," + inferencex_source(64) + ",sglang," + pro + ",b300,fp4,agg,1024,1024,8,1,8,1,1",
      "h200," + inferencex_source(64) + ",sglang," + pro + ",h200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "mi355x," + inferencex_source(64) + ",sglang," + pro + ",mi355x,fp8,agg,1024,1024,64,8,1,1,1",
      "trt-8k," + inferencex_source(64) + ",trtllm," + pro + ",b200_sxm,fp4,agg,8192,1024,64,8,1,1,1",
      "trt-1k," + inferencex_source(64) + ",trtllm," + pro + ",b300,fp4,agg,1024,1024,64,8,1,1,1",
      "b200-bf16," + inferencex_source(64) + ",sglang," + pro + ",b200_sxm,bf16,agg,1024,1024,64,8,1,1,1"};
  const auto r = parse_rows(kInferenceXHeader, rows);
  REQUIRE(r.runs.size() == 9);
  const int chunk[] = {8192, 32768, 65536, 16384, 4096, 8192, 0, 0, 0};
  const double memory[] = {0.90, 0.90, 0.835, 0.94, 0.88, 0, 0, 0, 0};
  const int page[] = {0, 0, 0, 0, 0, 256, 128, 128, 0};
  const int budget[] = {0, 0, 0, 0, 0, 0, 9472, 8192, 0};  // TensorRT-LLM: max(ISL + OSL + 256, 8192)
  for (std::size_t i = 0; i < 9; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_chunk_tokens == chunk[i]);
    CHECK(r.runs[i].server_gpu_memory_utilization == memory[i]);
    CHECK(r.runs[i].server_kv_block_tokens == page[i]);
    CHECK(r.runs[i].server_max_num_tokens == budget[i]);
    CHECK(r.runs[i].server_whole_prompts == (budget[i] > 0));
    CHECK((r.runs[i].notes.find("DeepSeek-V4 scripts") != std::string::npos) == (i < 8));
  }
  // --max-running-requests: 1.5 x the clients (B200, B300 and H200 alike at 64), B300's high-concurrency recipe its
  // own; every B300 row with attention DP adds --enable-prefill-delayer.
  const int running[] = {96, 96, 4352, 96, 96, 0, 0, 0, 0};
  for (std::size_t i = 0; i < 9; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_max_running == running[i]);
    CHECK(r.runs[i].server_prefill_delayer == (i == 2 || i == 3));
  }
  // B300 with attention DP at EP 8 (the medium-concurrency mega-MoE recipe): 768; 4 clients on H200: at least 8.
  const std::string header =
      "id,silicon_data_source,backend,model_path,system,precision,mode,isl,osl,batch_size,"
      "tp_size,attention_dp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms";
  const std::string ep_rows[] = {
      "b300-ep8," + inferencex_source(256) + ",sglang," + pro + ",b300,fp4,agg,1024,1024,32,1,8,8,1,1",
      "h200-c4," + inferencex_source(4) + ",sglang," + pro + ",h200_sxm,fp8,agg,1024,1024,4,8,1,1,1,1"};
  const auto ep = parse_rows(header, ep_rows);
  REQUIRE(ep.runs.size() == 2);
  CHECK(ep.runs[0].server_max_running == 768);
  CHECK(ep.runs[0].server_prefill_delayer);
  CHECK(ep.runs[1].server_max_running == 8);
  CHECK_FALSE(ep.runs[1].server_prefill_delayer);
}

TEST_CASE("silicon CSV: InferenceX's gpt-oss rows on Hopper keep a BF16 KV cache, as its scripts leave it",
          "[traces][silicon]") {
  const std::string rows[] = {
      "h100," + inferencex_source(64) + ",vllm,openai/gpt-oss-120b,h100_sxm,fp4,agg,1024,1024,64,2,1,1,1",
      "h200," + inferencex_source(64) + ",vllm,openai/gpt-oss-120b,h200_sxm,fp4,agg,1024,1024,64,2,1,1,1",
      "b200," + inferencex_source(64) + ",vllm,openai/gpt-oss-120b,b200_sxm,fp4,agg,1024,1024,64,2,1,1,1",
      "trt," + inferencex_source(64) + ",trtllm,openai/gpt-oss-120b,h200_sxm,fp4,agg,1024,1024,64,2,1,1,1",
      "trt-b200," + inferencex_source(64) + ",trtllm,openai/gpt-oss-120b,b200_sxm,fp4,agg,1024,1024,64,2,1,1,1"};
  const auto r = parse_rows(kInferenceXHeader, rows);
  REQUIRE(r.runs.size() == 5);
  CHECK(r.runs[0].server_kv_cache == "bf16");
  CHECK(r.runs[1].server_kv_cache == "bf16");
  CHECK(r.runs[2].server_kv_cache.empty());  // the B200 script sets --kv-cache-dtype fp8: a quantized row's FP8
  // TensorRT-LLM: the H200 script's kv_cache_config dtype auto is the checkpoint's BF16, the B200 one's is fp8.
  CHECK(r.runs[3].server_kv_cache == "bf16");
  CHECK(r.runs[3].notes.find("KV cache BF16 (dtype auto)") != std::string::npos);
  CHECK(r.runs[4].server_kv_cache.empty());
  CHECK(r.runs[4].server_free_gpu_memory_fraction == 0.85);
}

TEST_CASE("silicon CSV: InferenceX's GLM-5 SGLang and Kimi-K2.5 vLLM rows take its scripts' budgets, memory and KV",
          "[traces][silicon]") {
  const std::string glm = "zai-org/GLM-5-FP8", glm_fp4 = "nvidia/GLM-5-NVFP4", kimi = "moonshotai/Kimi-K2.5";
  const std::string rows[] = {
      "glm-b200-fp8," + inferencex_source(64) + ",sglang," + glm + ",b200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "glm-b300-fp4," + inferencex_source(64) + ",sglang," + glm_fp4 + ",b300,fp4,agg,1024,1024,64,8,1,1,1",
      "glm-h200," + inferencex_source(64) + ",sglang," + glm + ",h200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "glm-mi355x," + inferencex_source(64) + ",sglang,zai-org/GLM-5.1-FP4,mi355x,fp4,agg,1024,1024,64,8,1,1,1",
      "kimi-b200-fp4," + inferencex_source(64) + ",vllm,nvidia/Kimi-K2.5-NVFP4,b200_sxm,fp4,agg,8192,1024,64,8,1,1,1",
      "kimi-h200-int4," + inferencex_source(64) + ",vllm," + kimi + ",h200_sxm,int4,agg,1024,1024,64,8,1,1,1",
      "kimi-mi325x," + inferencex_source(64) + ",vllm," + kimi + ",mi325x,int4,agg,1024,1024,64,8,1,1,1",
      "kimi-mi355x," + inferencex_source(64) + ",vllm,amd/Kimi-K2.5-MXFP4,mi355x,fp4,agg,1024,1024,64,8,1,1,1",
      "kimi-sglang," + inferencex_source(64) + ",sglang," + kimi + ",h200_sxm,int4,agg,1024,1024,64,8,1,1,1"};
  const auto r = parse_rows(kInferenceXHeader, rows);
  REQUIRE(r.runs.size() == 9);
  const int budget[] = {32768, 32768, 0, 0, 16384, 0, 0, 0, 0};
  const double memory[] = {0.85, 0.9, 0.85, 0.85, 0.90, 0.95, 0.95, 0.90, 0};
  const char* kv[] = {"fp8", "fp8", "bf16", "fp8", "fp8", "bf16", "bf16", "bf16", ""};
  const int block[] = {0, 0, 0, 0, 0, 0, 64, 1, 0};
  for (std::size_t i = 0; i < 9; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_max_num_tokens == budget[i]);
    CHECK(r.runs[i].server_gpu_memory_utilization == memory[i]);
    CHECK(r.runs[i].server_kv_cache == kv[i]);
    CHECK(r.runs[i].server_kv_block_tokens == block[i]);
  }
  CHECK(r.runs[0].server_chunk_tokens == 32768);
  CHECK(r.runs[1].server_recv_interval == 10);  // the FP4 recipe polls every 10 steps
  CHECK(r.runs[0].server_recv_interval == 0);
}

TEST_CASE("silicon CSV: InferenceX's MiniMax-M2.5 vLLM rows keep a BF16 KV cache on Hopper, FP8 on Blackwell",
          "[traces][silicon]") {
  const std::string mx = "MiniMaxAI/MiniMax-M2.5", fp4 = "nvidia/MiniMax-M2.5-NVFP4";
  const std::string rows[] = {
      "h100," + inferencex_source(64) + ",vllm," + mx + ",h100_sxm,fp8,agg,8192,1024,64,4,1,1,1",
      "h200," + inferencex_source(64) + ",vllm," + mx + ",h200_sxm,fp8,agg,1024,1024,64,4,1,1,1",
      "b200," + inferencex_source(64) + ",vllm," + mx + ",b200_sxm,fp8,agg,8192,1024,64,4,1,1,1",
      "b300-fp4," + inferencex_source(64) + ",vllm," + fp4 + ",b300,fp4,agg,1024,8192,64,4,1,1,1",
      "sglang," + inferencex_source(64) + ",sglang," + mx + ",h200_sxm,fp8,agg,1024,1024,64,4,1,1,1",
      "m3," + inferencex_source(64) + ",vllm,MiniMaxAI/MiniMax-M3,h200_sxm,fp8,agg,1024,1024,64,4,1,1,1"};
  const auto r = parse_rows(kInferenceXHeader, rows);
  REQUIRE(r.runs.size() == 6);
  // Hopper: no --kv-cache-dtype and vLLM's own budget (H100 at 0.90 with 256 running, H200 at 0.95); Blackwell: FP8
  // KV, 2 x ISL, 0.90, block 32 for FP8. No M2.5 script for SGLang; M3's rule is its own (128-token blocks).
  const int budget[] = {0, 0, 16384, 2048, 0, 2048};
  const double memory[] = {0.90, 0.95, 0.90, 0.90, 0, 0.90};
  const char* kv[] = {"bf16", "bf16", "fp8", "fp8", "", "bf16"};
  const int block[] = {0, 0, 32, 0, 0, 128};
  const int running[] = {256, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_max_num_tokens == budget[i]);
    CHECK(r.runs[i].server_gpu_memory_utilization == memory[i]);
    CHECK(r.runs[i].server_kv_cache == kv[i]);
    CHECK(r.runs[i].server_kv_block_tokens == block[i]);
    CHECK(r.runs[i].server_max_running == running[i]);
    CHECK((r.runs[i].notes.find("MiniMax-M2.5 scripts") != std::string::npos) == (i < 4));
  }
}

TEST_CASE("silicon CSV: InferenceX's MiniMax-M3 vLLM rows take its scripts' blocks, budgets, KV and top-k reuse",
          "[traces][silicon]") {
  const std::string mx = "MiniMaxAI/MiniMax-M3-MXFP8";
  const std::string rows[] = {
      "h100," + inferencex_source(64) + ",vllm," + mx + ",h100_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "h200," + inferencex_source(64) + ",vllm," + mx + ",h200_sxm,fp8,agg,8192,1024,64,8,1,1,1",
      "b200," + inferencex_source(64) + ",vllm," + mx + ",b200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "b300-fp4," + inferencex_source(64) + ",vllm,nvidia/MiniMax-M3-NVFP4,b300,fp4,agg,1024,8192,64,4,1,1,1",
      "b200-fp4," + inferencex_source(64) + ",vllm,nvidia/MiniMax-M3-NVFP4,b200_sxm,fp4,agg,1024,1024,64,4,1,1,1",
      "mi355x," + inferencex_source(64) + ",vllm," + mx + ",mi355x,fp8,agg,1024,1024,64,4,1,1,1",
      "mi325x," + inferencex_source(64) + ",vllm," + mx + ",mi325x,fp8,agg,1024,1024,64,8,1,1,1",
      "sglang," + inferencex_source(64) + ",sglang," + mx + ",h200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "h200-fp4," + inferencex_source(64) + ",vllm,nvidia/MiniMax-M3-NVFP4,h200_sxm,fp4,agg,1024,1024,64,8,1,1,1"};
  const auto r = parse_rows(kInferenceXHeader, rows);
  REQUIRE(r.runs.size() == 9);
  // NVIDIA: 2 x ISL at 0.90 (B300 FP4 0.95); AMD: the engine's defaults. No script for SGLang or H200 FP4.
  const int budget[] = {2048, 16384, 2048, 2048, 2048, 0, 0, 0, 0};
  const double memory[] = {0.90, 0.90, 0.90, 0.95, 0.90, 0, 0, 0, 0};
  const char* kv[] = {"bf16", "bf16", "fp8", "fp8", "bf16", "fp8", "bf16", "", ""};
  const int block[] = {128, 128, 128, 128, 128, 128, 128, 0, 0};
  const int freq[] = {0, 4, 0, 0, 0, 0, 0, 0, 0};  // only the H200 script reuses the indexer's top-k
  for (std::size_t i = 0; i < 9; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_max_num_tokens == budget[i]);
    CHECK(r.runs[i].server_gpu_memory_utilization == memory[i]);
    CHECK(r.runs[i].server_kv_cache == kv[i]);
    CHECK(r.runs[i].server_kv_block_tokens == block[i]);
    CHECK(r.runs[i].server_index_topk_freq == freq[i]);
  }
}

TEST_CASE("silicon CSV: InferenceX's TensorRT-LLM rows with attention DP balance contexts as its scripts set it",
          "[traces][silicon][adp]") {
  const std::string r1 = "deepseek-ai/DeepSeek-R1-0528", fp4 = "nvidia/DeepSeek-R1-0528-FP4-v2";
  const std::string oss = "openai/gpt-oss-120b", v4 = "deepseek-ai/DeepSeek-V4-Pro";
  const std::string rows[] = {
      // batch_size per attention rank, tp_size, attention_dp_size
      "r1-fp4-dp," + inferencex_source(256) + ",trtllm," + fp4 + ",b200_sxm,fp4,agg,1024,1024,32,1,8,1,1",
      "r1-fp8-dp," + inferencex_source(256) + ",trtllm," + r1 + ",b200_sxm,fp8,agg,1024,1024,32,1,8,1,1",
      "r1-h200-dp," + inferencex_source(64) + ",trtllm," + r1 + ",h200_sxm,fp8,agg,8192,1024,8,1,8,1,1",
      "r1-tp," + inferencex_source(64) + ",trtllm," + r1 + ",b200_sxm,fp8,agg,1024,1024,64,8,1,1,1",
      "oss-dp," + inferencex_source(64) + ",trtllm," + oss + ",b200_sxm,fp4,agg,1024,1024,16,1,4,1,1",
      "oss-tp," + inferencex_source(64) + ",trtllm," + oss + ",b200_sxm,fp4,agg,1024,1024,64,4,1,1,1",
      "oss-h200-dp," + inferencex_source(64) + ",trtllm," + oss + ",h200_sxm,fp4,agg,1024,1024,16,1,4,1,1",
      "v4-b200-dp," + inferencex_source(256) + ",trtllm," + v4 + ",b200_sxm,fp4,agg,1024,1024,32,1,8,1,1",
      "v4-b300-dp," + inferencex_source(256) + ",trtllm," + v4 + ",b300,fp4,agg,1024,1024,32,1,8,1,1",
      "r1-sglang-dp," + inferencex_source(256) + ",sglang," + fp4 + ",b200_sxm,fp4,agg,1024,1024,32,1,8,1,1"};
  const auto r = parse_rows(kInferenceXHeader, rows);
  REQUIRE(r.runs.size() == 10);
  // DeepSeek-R1: timeout 60, no batching wait; gpt-oss B200: TensorRT-LLM's 50 and 10 (its H200 script has no
  // attention_dp_config); DeepSeek-V4 B200 batching wait 30, B300 (no MTP) 60 and 0; SGLang and TP rows: none.
  const bool on[] = {true, true, true, false, true, false, false, true, true, false};
  const int timeout[] = {60, 60, 60, 50, 50, 50, 50, 50, 60, 50};
  const int batching[] = {0, 0, 0, 10, 10, 10, 10, 30, 0, 10};
  for (std::size_t i = 0; i < 10; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_adp_balance == on[i]);
    CHECK(r.runs[i].server_adp_timeout_iters == timeout[i]);
    CHECK(r.runs[i].server_adp_batching_wait_iters == batching[i]);
    CHECK((r.runs[i].notes.find("attention DP balance") != std::string::npos) == on[i]);
  }
  // TensorRT-LLM waits for batches only without attention DP: the FP8 B200 1k/1k rule leaves the DP row alone.
  CHECK(r.runs[1].server_batch_wait_iters == 0);
  CHECK(r.runs[3].server_batch_wait_iters == 40);
  // kv_cache_config.free_gpu_memory_fraction: 0.8 in the DeepSeek-R1 Blackwell scripts, 0.75 in its H200 one, 0.85 in
  // gpt-oss's on both GPUs, 0.5 in DeepSeek-V4's; the SGLang row has none.
  const double free_fraction[] = {0.8, 0.8, 0.75, 0.8, 0.85, 0.85, 0.85, 0.5, 0.5, 0};
  for (std::size_t i = 0; i < 10; ++i) {
    INFO(r.runs[i].id);
    CHECK(r.runs[i].server_free_gpu_memory_fraction == free_fraction[i]);
  }
}
