// Mapping measured rows to scenarios: names to presets, precisions, layouts, budgets and closed-loop clients,
// and the rows that must not be guessed.
#include <catch2/catch.hpp>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "serving_mapping_support.hpp"

using namespace fleetcast;
using test::agg_run;
using test::mapped;
using test::unmapped;

TEST_CASE("mapping: checkpoint names and systems resolve to presets; quantized runs use FP8 weights and KV",
          "[validation]") {
  auto r = agg_run("nvidia/Llama-3.1-8B-Instruct-FP8", "h100_sxm", "vllm", {16, 0, 2, 1, 1, 1, 1});
  r.gemm_quant_mode = "fp8";
  const auto m = mapped(r);
  const auto s = specs::parse_scenario(m.scenario, "row");
  CHECK(s.model.name == "llama-3.1-8b");
  CHECK(s.deployment.hardware.name == "h100");
  CHECK(s.model.precision.weights == specs::Precision::fp8);
  CHECK(s.model.precision.kv_cache == specs::Precision::fp8);
  CHECK(m.group == "llama-3.1-8b | h100 | vllm | agg");
  // A blank precision keeps the preset's (BF16 weights and KV for Llama).
  const auto plain = specs::parse_scenario(
      mapped(agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "vllm", {16, 0, 2, 1, 1, 1, 1})).scenario, "row");
  CHECK(plain.model.precision.weights == specs::Precision::bf16);
  CHECK(plain.model.precision.kv_cache == specs::Precision::bf16);
  // NVFP4 experts and FP8-block attention, as the columns say.
  auto q = agg_run("Qwen/Qwen3-235B-A22B-FP8", "b200_sxm", "sglang", {8, 0, 4, 1, 1, 4, 1});
  q.gemm_quant_mode = "fp8_block";
  q.moe_quant_mode = "nvfp4";
  const auto qs = specs::parse_scenario(mapped(q).scenario, "row");
  CHECK(qs.model.precision.weights == specs::Precision::fp8);
  CHECK(qs.model.precision.experts == specs::Precision::nvfp4);
}

TEST_CASE("mapping: a run with no precision or quant modes takes the format its checkpoint's name states",
          "[validation]") {
  // A benchmark file names only the checkpoint: NVIDIA's -FP4-v2 DeepSeek-R1 is NVFP4, not the preset's FP8.
  const auto ds = mapped(agg_run("nvidia/DeepSeek-R1-0528-FP4-v2", "b200_sxm", "trtllm", {16, 0, 8, 1, 1, 8, 1}));
  const auto dss = specs::parse_scenario(ds.scenario, "row");
  CHECK(dss.model.precision.weights == specs::Precision::nvfp4);
  CHECK(dss.model.precision.experts == specs::Precision::nvfp4);
  CHECK(ds.notes.find("precision nvfp4: the checkpoint's name") != std::string::npos);
  // AMD's MXFP4 checkpoint is OCP MXFP4 (fp4), not NVFP4; an -FP8 Llama is FP8 with its KV cache in FP8.
  const auto mx = mapped(agg_run("amd/DeepSeek-R1-0528-MXFP4", "mi355x", "atom", {16, 0, 8, 1, 1, 8, 1}));
  CHECK(specs::parse_scenario(mx.scenario, "row").model.precision.experts == specs::Precision::fp4);
  const auto l8 = specs::parse_scenario(
      mapped(agg_run("nvidia/Llama-3.1-8B-Instruct-FP8", "h100_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1})).scenario, "row");
  CHECK(l8.model.precision.weights == specs::Precision::fp8);
  CHECK(l8.model.precision.kv_cache == specs::Precision::fp8);
  // A stated precision wins over the name.
  auto stated = agg_run("nvidia/DeepSeek-R1-0528-FP4-v2", "b200_sxm", "trtllm", {16, 0, 8, 1, 1, 8, 1});
  stated.precision = "fp8";
  CHECK(specs::parse_scenario(mapped(stated).scenario, "row").model.precision.experts == specs::Precision::fp8);
}

TEST_CASE("mapping: a 4-bit label on gpt-oss is its published checkpoint, MXFP4 experts and BF16 elsewhere",
          "[validation]") {
  // The CSV labels gpt-oss-120b's FP4 rows nvfp4 in both columns; the checkpoint is MXFP4 experts with BF16
  // attention, and no runtime re-quantises it.
  auto r = agg_run("openai/gpt-oss-120b", "b200_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1});
  r.precision = "fp4";
  r.gemm_quant_mode = "nvfp4";
  r.moe_quant_mode = "nvfp4";
  const auto m = mapped(r);
  const auto s = specs::parse_scenario(m.scenario, "row");
  CHECK(s.model.precision.weights == specs::Precision::bf16);
  CHECK(s.model.precision.experts == specs::Precision::fp4);
  CHECK(m.notes.find("checkpoint published with 4-bit experts") != std::string::npos);
  // The same label on a model published in BF16 is a quantised checkpoint of it (NVFP4 weights and experts).
  auto l = agg_run("meta-llama/Llama-3.1-70B", "b200_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1});
  l.gemm_quant_mode = "nvfp4";
  l.moe_quant_mode = "nvfp4";
  CHECK(specs::parse_scenario(mapped(l).scenario, "row").model.precision.weights == specs::Precision::nvfp4);
}

TEST_CASE("mapping: aiconfigurator's quant modes name the weights and, where they say, the experts' activations",
          "[validation]") {
  // DeepSeek-R1 under TensorRT-LLM on Hopper with W4AFP8 experts: INT4 weights multiplied against FP8 activations.
  auto r = agg_run("deepseek-ai/DeepSeek-R1", "h200_sxm", "trtllm", {16, 0, 8, 1, 1, 1, 8});
  r.gemm_quant_mode = "fp8_block";
  r.moe_quant_mode = "w4afp8";
  const auto w4a8 = mapped(r);
  const auto s = specs::parse_scenario(w4a8.scenario, "row").model.precision;
  CHECK(s.weights == specs::Precision::fp8);
  CHECK(s.experts == specs::Precision::int4);
  CHECK(s.expert_inputs == specs::Precision::fp8);
  CHECK_THAT(w4a8.notes, Catch::Contains("experts' activations in fp8 (moe_quant_mode w4afp8)"));
  // gpt-oss's MXFP4 experts against BF16 activations (vLLM's default on Blackwell without the MXFP8 flag).
  auto g = agg_run("openai/gpt-oss-120b", "b200_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1});
  g.gemm_quant_mode = "bfloat16";
  g.moe_quant_mode = "w4a16_mxfp4";
  const auto gp = specs::parse_scenario(mapped(g).scenario, "row").model.precision;
  CHECK(gp.experts == specs::Precision::fp4);
  CHECK(gp.expert_inputs == specs::Precision::bf16);
  // Kimi-K2.5 is published with INT4 experts and BF16 elsewhere: an int4 label is that checkpoint, not INT4
  // attention.
  auto k = agg_run("moonshotai/Kimi-K2.5", "h200_sxm", "sglang", {16, 0, 8, 1, 1, 1, 8});
  k.precision = "int4";
  const auto kp = specs::parse_scenario(mapped(k).scenario, "row").model.precision;
  CHECK(kp.weights == specs::Precision::bf16);
  CHECK(kp.experts == specs::Precision::int4);
  k.precision = "fp4";  // nvidia/Kimi-K2.5-NVFP4: re-quantised, taken as labelled
  k.gemm_quant_mode = k.moe_quant_mode = "nvfp4";
  CHECK(specs::parse_scenario(mapped(k).scenario, "row").model.precision.experts == specs::Precision::nvfp4);
  // On a model published in BF16, an int4_wo expert label is INT4 weight-only experts.
  auto q = agg_run("Qwen/Qwen3-235B-A22B", "h200_sxm", "vllm", {16, 0, 4, 1, 1, 1, 4});
  q.moe_quant_mode = "int4_wo";
  CHECK(specs::parse_scenario(mapped(q).scenario, "row").model.precision.experts == specs::Precision::int4);
  // No INT8 precision is modelled: an INT8 weight-only row is refused by name, not run as something else.
  g.gemm_quant_mode = "int8_wo";
  CHECK_THAT(unmapped(g), Catch::Contains("quant mode int8_wo: not a known precision"));
}

TEST_CASE("mapping: the layout is one worker of tp x pp x dp GPUs with the row's per-rank batch", "[validation]") {
  // Qwen3-235B on 8 H200: attention TP4 x DP2, experts EP8 (moe_tp 1 x ep 8 = tp 4 x dp 2).
  const auto m = mapped(agg_run("Qwen/Qwen3-235B-A22B-FP8", "h200_sxm", "vllm", {32, 0, 4, 1, 2, 1, 8}));
  const auto s = specs::parse_scenario(m.scenario, "row");
  CHECK(s.deployment.replica == specs::ReplicaLayout{4, 1, 8, 2});
  CHECK(s.deployment.total_gpus() == 8);
  CHECK(s.deployment.num_replicas() == 1);
  CHECK(s.deployment.scheduler.max_num_seqs == 32);  // per attention-DP rank, as the batcher counts
  CHECK(s.deployment.scheduler.policy == specs::SchedulerPolicy::vllm);
  CHECK(s.deployment.scheduler.max_num_batched_tokens == 8192);
  CHECK(s.deployment.runtime == "vllm");
  CHECK(s.workload.classes.at(0).arrival.kind == specs::ArrivalKind::closed_loop);
  CHECK(s.workload.classes.at(0).arrival.clients == 16);
  CHECK(s.workload.classes.at(0).input_tokens.value == 1024);
  CHECK(s.workload.classes.at(0).output_tokens.value == 128);
  CHECK(s.num_requests == validation::requests_for_clients(16));
  // A 2-GPU worker is one replica on a 2-GPU "node", not 4 replicas of an 8-GPU server (its batch of 16 holds
  // the 16 clients: one worker).
  const auto small = specs::parse_scenario(
      mapped(agg_run("Qwen/Qwen3-32B", "h100_sxm", "trtllm", {16, 0, 2, 1, 1, 1, 1})).scenario, "row");
  CHECK(small.deployment.total_gpus() == 2);
  CHECK(small.deployment.num_replicas() == 1);
  CHECK(small.deployment.scheduler.policy == specs::SchedulerPolicy::trtllm);
}

TEST_CASE("mapping: SGLang's chunk size follows the GPU's memory as its server does", "[validation]") {
  const auto h200 = specs::parse_scenario(
      mapped(agg_run("Qwen/Qwen3-32B", "h200_sxm", "sglang", {8, 0, 2, 1, 1, 1, 1})).scenario, "row");
  CHECK(h200.deployment.scheduler.chunk_tokens == 8192);
  CHECK(h200.deployment.scheduler.max_num_batched_tokens == 16384);
  const auto b200 = specs::parse_scenario(
      mapped(agg_run("Qwen/Qwen3-32B", "b200_sxm", "sglang", {8, 0, 2, 1, 1, 1, 1})).scenario, "row");
  CHECK(b200.deployment.scheduler.chunk_tokens == 16384);
}

TEST_CASE("mapping: a blank attention_dp_size under experts on more GPUs than tp reads as attention DP",
          "[validation]") {
  // vLLM's Qwen3-235B FP8 at tp 1 with moe_tp 4 (235 GB of weights: not one H200): 4 GPUs, attention DP 4, the
  // experts' tensor parallelism over all four.
  const auto m = mapped(agg_run("Qwen/Qwen3-235B-A22B-FP8", "h200_sxm", "vllm", {16, 0, 1, 1, 0, 4, 1}));
  const auto s = specs::parse_scenario(m.scenario, "row");
  CHECK(s.deployment.replica == specs::ReplicaLayout{1, 1, 1, 4});
  CHECK(s.deployment.total_gpus() == 4);
  CHECK(s.deployment.num_replicas() == 1);
  CHECK(m.notes.find("attention_dp_size blank: 4 from moe_tp_size 4 x moe_ep_size 1 / tp_size 1") != std::string::npos);
  // tp 2 under moe_tp 2 x ep 2: DP 2.
  const auto t = specs::parse_scenario(
      mapped(agg_run("Qwen/Qwen3-235B-A22B-FP8", "h200_sxm", "vllm", {16, 0, 2, 1, 0, 2, 2})).scenario, "row");
  CHECK(t.deployment.replica == specs::ReplicaLayout{2, 1, 2, 2});
  // Consistent columns are read as they are, without the note.
  const auto u = mapped(agg_run("Qwen/Qwen3-235B-A22B-FP8", "h200_sxm", "vllm", {16, 0, 2, 1, 0, 2, 1}));
  CHECK(specs::parse_scenario(u.scenario, "row").deployment.replica == specs::ReplicaLayout{2, 1, 1, 1});
  CHECK(u.notes.find("attention_dp_size blank") == std::string::npos);
}

TEST_CASE("mapping: a missing concurrency comes from batch x attention DP, and says so", "[validation]") {
  auto r = agg_run("Qwen/Qwen3-235B-A22B-FP8", "h200_sxm", "vllm", {32, 0, 4, 1, 2, 1, 8});
  r.concurrency = 0;
  const auto m = mapped(r);
  CHECK(m.scenario["workload"]["arrival"]["clients"] == 64);
  CHECK(m.notes.find("concurrency from batch_size x attention_dp_size") != std::string::npos);
}

TEST_CASE("mapping: systems outside the development set map to their presets", "[validation]") {
  const auto hardware = [](const char* system, const char* model) {
    return mapped(agg_run(model, system, "vllm", {8, 0, 1, 1, 1, 1, 1})).scenario["deployment"]["hardware"];
  };
  CHECK(hardware("a100_sxm", "meta-llama/Llama-3.1-8B-Instruct") == "a100");
  CHECK(hardware("h800_sxm", "meta-llama/Llama-3.1-8B-Instruct") == "h800");
  CHECK(hardware("l40s", "meta-llama/Llama-3.1-8B-Instruct") == "l40s");
  CHECK(hardware("l40s_pcie", "meta-llama/Llama-3.1-8B-Instruct") == "l40s");
  // aiconfigurator's H20 systems: h20_sxm (96 GB HBM3), and h20_3e and h20e_sxm (141 GB HBM3e).
  CHECK(hardware("h20_sxm", "Qwen/Qwen3-32B") == "h20");
  CHECK(hardware("h20_3e", "Qwen/Qwen3-32B") == "h20-3e");
  CHECK(hardware("h20e_sxm", "Qwen/Qwen3-32B") == "h20-3e");
  CHECK(hardware("H20-3e", "Qwen/Qwen3-32B") == "h20-3e");
  CHECK(hardware("b60", "Qwen/Qwen3-32B") == "arc-pro-b60");  // aiconfigurator's Intel Arc Pro B60
  CHECK(hardware("gb300", "Qwen/Qwen3-32B") == "gb300");
  CHECK(hardware("mi300x", "Qwen/Qwen3-32B") == "mi300x");
  CHECK(hardware("MI325X", "Qwen/Qwen3-32B") == "mi325x");
  CHECK(hardware("mi355x", "openai/gpt-oss-120b") == "mi355x");
  CHECK(hardware("mi300x_oam", "Qwen/Qwen3-32B") == "mi300x");
  CHECK(hardware("h200-sxm", "Qwen/Qwen3-32B") == "h200");
  CHECK(hardware("H100_SXM5", "Qwen/Qwen3-32B") == "h100");
  CHECK(hardware("gb200-nvl72", "Qwen/Qwen3-32B") == "gb200");
  CHECK(hardware("ascend-950dt", "Qwen/Qwen3-32B") == "ascend-950dt");  // a hyphen inside a name stays
  // The RTX PRO 6000 Server Edition however it is spelt; the Workstation and Max-Q Editions are other parts.
  CHECK(hardware("rtx6000pro", "openai/gpt-oss-120b") == "rtx6000pro");
  CHECK(hardware("RTX_PRO_6000", "openai/gpt-oss-120b") == "rtx6000pro");
  CHECK(hardware("rtx-pro-6000-blackwell-server", "openai/gpt-oss-120b") == "rtx6000pro");
  CHECK(hardware("rtx_pro_6000_se", "openai/gpt-oss-120b") == "rtx6000pro");
  CHECK(unmapped(agg_run("openai/gpt-oss-120b", "rtx_pro_6000_maxq", "vllm", {8, 0, 1, 1, 1, 1, 1}))
            .find("rtx_pro_6000_maxq") != std::string::npos);
}

TEST_CASE("mapping: vLLM's step budget follows its version's default for the GPU's memory", "[validation]") {
  const auto budget = [](const char* system, const char* version) {
    auto r = agg_run("Qwen/Qwen3-32B", system, "vllm", {16, 0, 1, 1, 1, 1, 1});
    r.backend_version = version;
    return specs::parse_scenario(mapped(r).scenario, "row").deployment.scheduler.max_num_batched_tokens;
  };
  // v0.28.0 added a tier for GPUs with >= 160 GiB (B200's 180 GB is 167.6 GiB): 16384 for the API server.
  CHECK(budget("b200_sxm", "0.28.0") == 16384);
  CHECK(budget("mi355x", "0.30.1") == 16384);
  CHECK(budget("b200_sxm", "1.0.0") == 16384);
  CHECK(budget("b200_sxm", "v0.28.1") == 16384);
  // Before it, or below 160 GiB (H200's 141 GB), or a version that does not say: 8192.
  CHECK(budget("b200_sxm", "0.19.0") == 8192);
  CHECK(budget("h200_sxm", "0.28.0") == 8192);
  CHECK(budget("b200_sxm", "") == 8192);
  CHECK(budget("b200_sxm", "nightly-5b8c30d62b754b57") == 8192);
}

TEST_CASE("mapping: an ATOM row runs ATOM's scheduler: whole prompts, 16384 tokens a step", "[validation]") {
  const auto m = mapped(agg_run("openai/gpt-oss-120b", "mi355x", "atom", {64, 0, 8, 1, 1, 8, 1}));
  const auto s = specs::parse_scenario(m.scenario, "row");
  CHECK(s.deployment.runtime == "atom");
  CHECK(s.deployment.scheduler.policy == specs::SchedulerPolicy::atom);
  CHECK_FALSE(s.deployment.scheduler.chunked_prefill);
  CHECK(s.deployment.scheduler.max_num_batched_tokens == 16384);
  CHECK(s.deployment.scheduler.max_num_seqs == 64);
}

TEST_CASE("mapping: rows that would need a guess are not mapped, with the reason", "[validation]") {
  CHECK_THAT(unmapped(agg_run("acme/Unknown-7B", "h100_sxm", "vllm", {8, 0, 1, 1, 1, 1, 1})),
             Catch::Contains("no model preset unknown-7b"));
  CHECK_THAT(unmapped(agg_run("Qwen/Qwen3-32B", "mi250x", "vllm", {8, 0, 1, 1, 1, 1, 1})),
             Catch::Contains("no hardware preset mi250x"));
  // Another form factor of a chip is another part: lower clocks and bandwidth than the SXM preset.
  CHECK_THAT(unmapped(agg_run("Qwen/Qwen3-32B", "h100_pcie", "vllm", {8, 0, 1, 1, 1, 1, 1})),
             Catch::Contains("no hardware preset h100_pcie"));
  CHECK_THAT(unmapped(agg_run("Qwen/Qwen3-32B", "h200_nvl", "vllm", {8, 0, 1, 1, 1, 1, 1})),
             Catch::Contains("no hardware preset h200_nvl"));
  CHECK_THAT(unmapped(agg_run("Qwen/Qwen3-32B", "h100_sxm", "tgi", {8, 0, 1, 1, 1, 1, 1})),
             Catch::Contains("backend tgi"));
  CHECK_THAT(unmapped(agg_run("Qwen/Qwen3-32B", "h100_sxm", "vllm", {8, 0, 0, 1, 1, 1, 1})),
             Catch::Contains("tp_size is blank"));
  // Experts over 2 GPUs while attention has 1: the row's layout is inconsistent.
  CHECK_THAT(unmapped(agg_run("Qwen/Qwen3-235B-A22B-FP8", "h200_sxm", "vllm", {8, 0, 1, 1, 1, 2, 1})),
             Catch::Contains("moe_tp_size 2 x moe_ep_size 1 != tp_size 1"));
  // attention_dp_size blank and moe_tp not a multiple of tp: no whole number of attention-DP ranks reads it.
  CHECK_THAT(unmapped(agg_run("Qwen/Qwen3-235B-A22B-FP8", "h200_sxm", "vllm", {8, 0, 2, 1, 0, 3, 1})),
             Catch::Contains("moe_tp_size 3 x moe_ep_size 1 != tp_size 2"));
  // For a dense model the MoE columns say nothing: not a reason to refuse.
  mapped(agg_run("Qwen/Qwen3-32B", "h100_sxm", "vllm", {8, 0, 2, 1, 1, 4, 2}));
}

TEST_CASE("mapping: a disaggregated row becomes prefill and decode pools of whole workers", "[validation]") {
  traces::MeasuredServingRun r = agg_run("openai/gpt-oss-120b", "gb200", "trtllm", {});
  r.mode = "disagg";
  r.concurrency = 0;
  r.prefill = {1, 2, 1, 1, 1, 1, 1};
  r.decode = {16, 1, 4, 1, 1, 1, 4};
  const auto m = mapped(r);
  const auto s = specs::parse_scenario(m.scenario, "row");
  REQUIRE(s.deployment.disaggregation);
  CHECK(s.deployment.gpus_per_node == 1);  // gcd of the 1-GPU prefill worker, the 4-GPU decode worker and the tray
  CHECK(s.deployment.disaggregation->prefill.nodes == 2);
  CHECK(s.deployment.disaggregation->decode.nodes == 4);
  CHECK(s.deployment.disaggregation->decode.replica == specs::ReplicaLayout{4, 1, 4, 1});
  CHECK(s.deployment.disaggregation->decode.scheduler.max_num_seqs == 16);
  CHECK(m.scenario["workload"]["arrival"]["clients"] == 16);
}

TEST_CASE("mapping: a CSV row whose concurrency is a multiple of batch x attention DP is that many workers",
          "[validation]") {
  // silicon-dev.csv, nvidia/Qwen3-32B-NVFP4 on GB200 under TensorRT-LLM 1.3.0rc5, 15000 x 500 tokens:
  // silicon_concurrency 448, batch_size 14, TP2. One TP2 worker would hold 448 x 15,500 tokens of FP8 KV cache
  // (~910 GB on 2 GPUs of 186 GB): the 448 clients were spread over 32 workers of 14, behind a round-robin router.
  auto r = agg_run("nvidia/Qwen3-32B-NVFP4", "gb200", "trtllm", {14, 0, 2, 1, 1, 1, 1});
  r.isl = 15000;
  r.osl = 500;
  r.concurrency = 448;
  r.gemm_quant_mode = "nvfp4";
  const auto m = mapped(r);
  const auto s = specs::parse_scenario(m.scenario, "row");
  CHECK(s.deployment.replica == specs::ReplicaLayout{2, 1, 1, 1});
  CHECK(s.deployment.num_replicas() == 32);
  CHECK(s.deployment.total_gpus() == 64);
  CHECK(s.deployment.router == specs::RouterPolicy::round_robin);  // Dynamo's frontend default
  CHECK(s.deployment.scheduler.max_num_seqs == 14);
  CHECK(s.workload.classes.at(0).arrival.clients == 448);
  CHECK(m.notes.find("32 workers") != std::string::npos);
  // gpt-oss-120b on H100 under TensorRT-LLM: 192 clients, TP4 workers of batch 48 -> 4 workers on 2 nodes of 8.
  auto g = agg_run("openai/gpt-oss-120b", "h100_sxm", "trtllm", {48, 0, 4, 1, 0, 4, 1});
  g.concurrency = 192;
  const auto gs = specs::parse_scenario(mapped(g).scenario, "row");
  CHECK(gs.deployment.num_replicas() == 4);
  CHECK(gs.deployment.total_gpus() == 16);
  // Concurrency equal to (or below) the worker's batch stays one worker; a remainder is not a whole worker.
  auto one = agg_run("Qwen/Qwen3-32B", "h100_sxm", "vllm", {16, 0, 2, 1, 1, 1, 1});
  CHECK(specs::parse_scenario(mapped(one).scenario, "row").deployment.num_replicas() == 1);
  one.concurrency = 24;
  CHECK_THAT(unmapped(one), Catch::Contains("not a whole number of workers"));
  // A benchmark file's batch_size is the engine's max_num_seqs: more clients queue in that one engine.
  auto bench = agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1});
  bench.concurrency = 64;
  bench.num_requests = 640;
  CHECK(specs::parse_scenario(mapped(bench).scenario, "row").deployment.num_replicas() == 1);
}

TEST_CASE("mapping: a disaggregated row without worker counts maps only at one client, where they cannot matter",
          "[validation]") {
  // silicon-dev.csv, gpt-oss-120b on GB200 under TensorRT-LLM (Dynamo 0.7.0): prefill TP1, decode TP8, worker
  // counts and batch sizes blank.
  traces::MeasuredServingRun r = agg_run("openai/gpt-oss-120b", "gb200", "trtllm", {});
  r.mode = "disagg";
  r.isl = 8192;
  r.osl = 1024;
  r.prefill = {0, 0, 1, 1, 1, 1, 1};
  r.decode = {0, 0, 8, 1, 1, 8, 1};
  r.concurrency = 1;
  const auto m = mapped(r);
  const auto s = specs::parse_scenario(m.scenario, "row");
  REQUIRE(s.deployment.disaggregation);
  CHECK(s.deployment.disaggregation->prefill.nodes * s.deployment.gpus_per_node == 1);
  CHECK(s.deployment.disaggregation->decode.nodes * s.deployment.gpus_per_node == 8);
  CHECK(s.workload.classes.at(0).arrival.clients == 1);
  CHECK(m.notes.find("one client") != std::string::npos);
  // At two clients the number of prefill workers decides whether the two prompts prefill side by side.
  r.concurrency = 2;
  CHECK_THAT(unmapped(r), Catch::Contains("num_workers is blank"));
  r.concurrency = 0;
  CHECK_THAT(unmapped(r), Catch::Contains("num_workers is blank"));
}

TEST_CASE("mapping benchmark-file runs: open loop, burstiness, every request measured, what is not modelled",
          "[validation][bench]") {
  auto r = agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "vllm", {1024, 0, 1, 1, 1, 1, 1});
  r.concurrency = 0;
  r.request_rate_per_s = 3.0;
  r.num_requests = 200;
  {
    const auto s = specs::parse_scenario(mapped(r).scenario, "row");
    const auto& a = s.workload.classes.at(0).arrival;
    CHECK(a.kind == specs::ArrivalKind::poisson);
    CHECK(a.rate_per_s == 3.0);
    // The benchmark averaged over all 200 requests it sent: so does the simulation.
    CHECK(s.num_requests == 200);
    CHECK(s.measurement.warmup_fraction == 0.0);
    CHECK(s.measurement.cooldown_fraction == 0.0);
  }
  {
    // genai-perf and AIPerf send their warm-up requests first and leave them out: 16 of 216 simulated, unmeasured.
    auto w = r;
    w.num_requests = 216;
    w.warmup_requests = 16;
    const auto s = specs::parse_scenario(mapped(w).scenario, "row");
    CHECK(s.num_requests == 216);
    CHECK(static_cast<long>(s.measurement.warmup_fraction * 216) == 16);
  }
  r.burstiness = 4.0;  // gamma of shape 4: inter-arrival CV 1/2
  {
    const auto s = specs::parse_scenario(mapped(r).scenario, "row");
    CHECK(s.workload.classes.at(0).arrival.kind == specs::ArrivalKind::gamma);
    CHECK(s.workload.classes.at(0).arrival.cv == Catch::Detail::Approx(0.5));
  }
  r.input_lens = {100, 300};
  r.output_lens = {20, 40};
  {
    const auto m = mapped(r);
    const auto s = specs::parse_scenario(m.scenario, "row");
    CHECK(s.workload.classes.at(0).input_tokens.kind == specs::LengthKind::empirical);
    CHECK(s.workload.classes.at(0).output_tokens.values == std::vector<int>{20, 40});
    CHECK(m.notes.find("drawn independently") != std::string::npos);
  }
  // A file that gives no max_num_seqs ran the engine's own cap for the GPU: vLLM's API server 1,024 on an H100,
  // 256 on an A100 (its get_batch_defaults), SGLang's 2,048 (docs/SPECS.md, scheduler).
  const auto cap_of = [](const char* system, const char* runtime) {
    auto b = agg_run("meta-llama/Llama-3.1-8B-Instruct", system, runtime, {0, 0, 1, 1, 1, 1, 1});
    b.concurrency = 0;
    b.request_rate_per_s = 3.0;
    b.num_requests = 200;
    const auto m = mapped(b);
    CHECK(m.notes.find("'s default on ") != std::string::npos);
    return specs::parse_scenario(m.scenario, "row").deployment.scheduler.max_num_seqs;
  };
  CHECK(cap_of("h100_sxm", "vllm") == 1024);
  CHECK(cap_of("a100_sxm", "vllm") == 256);
  CHECK(cap_of("h100_sxm", "sglang") == 2048);
  // A CSV row's batch_size is its worker's batch: blank, it is not guessed.
  CHECK(unmapped(agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "vllm", {0, 0, 1, 1, 1, 1, 1})) ==
        "batch_size is blank");
  r.concurrency = 8;  // a rate and a client cap together
  CHECK(unmapped(r).find("open-loop arrivals held back by a client cap") != std::string::npos);
  auto spec = agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "sglang", {1024, 0, 1, 1, 1, 1, 1});
  spec.spec_accept_length = 2.6;
  CHECK(unmapped(spec).find("speculative decoding") != std::string::npos);
  // A CSV row (no request count) keeps the five-wave closed loop and the default measurement window.
  const auto csv = specs::parse_scenario(
      mapped(agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1})).scenario, "row");
  CHECK(csv.num_requests == validation::requests_for_clients(16));
  CHECK(csv.measurement.warmup_fraction == 0.1);
}

TEST_CASE("mapping: a row whose client drew its lengths in a range is simulated with that range and request count",
          "[validation]") {
  auto r = agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1});
  r.isl = 8192;
  r.osl = 1023;
  r.length_range_ratio = 0.8;
  r.requests_per_client = 10;
  const auto m = mapped(r);
  const auto s = specs::parse_scenario(m.scenario, "row");
  const auto& c = s.workload.classes.at(0);
  // randint(int(len x 0.8), len + 1): 6553 to 8192 and 818 to 1023 tokens, both ends included.
  CHECK(c.input_tokens.kind == specs::LengthKind::uniform);
  CHECK(c.input_tokens.min == 6553);
  CHECK(c.input_tokens.max == 8192);
  CHECK(c.output_tokens.min == 818);
  CHECK(c.output_tokens.max == 1023);
  // 10 requests for each of the 16 clients, every one averaged, the first wave included.
  CHECK(s.num_requests == 160);
  CHECK(s.measurement.warmup_fraction == 0.0);
  CHECK(s.measurement.cooldown_fraction == 0.0);
  CHECK(m.notes.find("lengths uniform from 0.8 x to 1 x") != std::string::npos);
  CHECK(m.notes.find("10 measured requests per client") != std::string::npos);
  // The file's own per-request lists win over a range.
  r.input_lens = {100, 300};
  r.output_lens = {20, 40};
  CHECK(specs::parse_scenario(mapped(r).scenario, "row").workload.classes.at(0).input_tokens.kind ==
        specs::LengthKind::empirical);
}

TEST_CASE("mapping: a row whose client warmed up first is simulated with that warm-up left out of the means",
          "[validation]") {
  auto r = agg_run("meta-llama/Llama-3.1-8B-Instruct", "h100_sxm", "vllm", {16, 0, 1, 1, 1, 1, 1});
  r.warmup_requests_per_client = 2;
  r.requests_per_client = 10;
  const auto m = mapped(r);
  const auto s = specs::parse_scenario(m.scenario, "row");
  // genai-perf's 2 x 16 warm-up requests, then 10 x 16 measured: the first 32 arrivals are left out, none at the end.
  CHECK(s.num_requests == 192);
  CHECK(static_cast<long>(s.measurement.warmup_fraction * 192) == 32);
  CHECK(s.measurement.cooldown_fraction == 0.0);
  CHECK(s.workload.classes.at(0).input_tokens.kind == specs::LengthKind::fixed);
  CHECK(m.notes.find("2 warm-up and 10 measured requests per client") != std::string::npos);
}
