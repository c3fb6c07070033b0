// Checkpoint names to model presets: suffixes that do not change the architecture, checkpoints of another's
// architecture (noted), and names with no preset (left unmapped, never guessed).
#include <catch2/catch.hpp>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/validation/checkpoint_names.hpp"
#include "fleetcast/validation/serving_mapping.hpp"

using namespace fleetcast;
using validation::model_for_checkpoint;

TEST_CASE("checkpoint names: precision, tuning and release-date suffixes name the same architecture",
          "[validation][checkpoints]") {
  // The development set's names keep resolving as before.
  CHECK(model_for_checkpoint("nvidia/Llama-3.1-8B-Instruct-FP8").preset == "llama-3.1-8b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-235B-A22B-FP8").preset == "qwen3-235b-a22b");
  CHECK(model_for_checkpoint("nvidia/Qwen3-32B-NVFP4").preset == "qwen3-32b");
  CHECK(model_for_checkpoint("MiniMaxAI/MiniMax-M2.5").preset == "minimax-m2.5");
  CHECK(model_for_checkpoint("Qwen/Qwen3.5-397B-A17B").preset == "qwen3.5-397b-a17b");
  // Release dates, packaging revisions and quantisation recipes.
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-R1-0528").preset == "deepseek-r1");
  CHECK(model_for_checkpoint("nvidia/DeepSeek-R1-0528-FP4-v2").preset == "deepseek-r1");
  CHECK(model_for_checkpoint("amd/DeepSeek-R1-0528-MXFP4-Preview").preset == "deepseek-r1");
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-V3-0324").preset == "deepseek-v3");
  CHECK(model_for_checkpoint("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8").preset == "qwen3-235b-a22b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-235B-A22B-Thinking-2507").preset == "qwen3-235b-a22b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-32B-FP8-Static-PerTensor").preset == "qwen3-32b");
  CHECK(model_for_checkpoint("RedHatAI/Qwen3-30B-A3B-FP8-dynamic").preset == "qwen3-30b-a3b");
  CHECK(model_for_checkpoint("meta-llama/Meta-Llama-3.1-405B").preset == "llama-3.1-405b");
  CHECK(model_for_checkpoint("openai/gpt-oss-20b").preset == "gpt-oss-20b");
  // AMD's Quark checkpoints, as InferenceX serves them on Instinct GPUs.
  CHECK(model_for_checkpoint("amd/Llama-3.1-405B-Instruct-FP8-KV").preset == "llama-3.1-405b");
  CHECK(model_for_checkpoint("amd/Llama-3.3-70B-Instruct-FP8-KV").preset == "llama-3.1-70b");
  CHECK(model_for_checkpoint("amd/Llama-3.1-70B-Instruct-PTPC-FP8").preset == "llama-3.1-70b");
  CHECK(model_for_checkpoint("amd/gpt-oss-120b-w-mxfp4-a-fp8").preset == "gpt-oss-120b");
  // The weights' format the last precision suffix states; none where the name states none.
  CHECK(model_for_checkpoint("nvidia/DeepSeek-R1-0528-FP4-v2").quant_mode == "nvfp4");
  CHECK(model_for_checkpoint("/models/DeepSeek-R1-0528-NVFP4-v2").quant_mode == "nvfp4");
  CHECK(model_for_checkpoint("amd/DeepSeek-R1-0528-MXFP4-Preview").quant_mode == "mxfp4");
  CHECK(model_for_checkpoint("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8").quant_mode == "fp8");
  CHECK(model_for_checkpoint("amd/Llama-3.1-70B-Instruct-PTPC-FP8").quant_mode == "fp8");
  CHECK(model_for_checkpoint("RedHatAI/Qwen3-30B-A3B-FP8-dynamic").quant_mode == "fp8");
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-R1-0528").quant_mode.empty());
  CHECK(model_for_checkpoint("amd/gpt-oss-120b-w-mxfp4-a-fp8").quant_mode.empty());
  // aiconfigurator's support matrix names (src/aiconfigurator/systems/support_matrix.csv): Meta's "-hf" Llama 2
  // checkpoints and Mistral's "-v0.1" releases; a "-v3.1" or "-v2" stays, being part of an architecture's name.
  CHECK(model_for_checkpoint("meta-llama/Llama-2-7b-hf").preset == "llama-2-7b");
  CHECK(model_for_checkpoint("meta-llama/Llama-2-70b-chat-hf").preset == "llama-2-70b");
  CHECK(model_for_checkpoint("mistralai/Mixtral-8x7B-v0.1").preset == "mixtral-8x7b");
  CHECK(model_for_checkpoint("mistralai/Mixtral-8x22B-Instruct-v0.1").preset == "mixtral-8x22b");
  CHECK(model_for_checkpoint("Qwen/Qwen2.5-72B").preset == "qwen2.5-72b");
  CHECK(model_for_checkpoint("Qwen/Qwen2.5-7B-Instruct").preset == "qwen2.5-7b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-0.6B").preset == "qwen3-0.6b");
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-V3.1").preset == "deepseek-v3");  // through its alias, not "-v3"
  CHECK(model_for_checkpoint("XiaomiMiMo/MiMo-V2-Flash").preset == "mimo-v2-flash");
  // Google's instruction-tuned and pre-trained Gemma checkpoints, and a re-quantised one.
  CHECK(model_for_checkpoint("google/gemma-3-27b-it").preset == "gemma-3-27b");
  CHECK(model_for_checkpoint("google/gemma-3-12b-pt").preset == "gemma-3-12b");
  CHECK(model_for_checkpoint("RedHatAI/gemma-3-4b-it-FP8-dynamic").preset == "gemma-3-4b");
  CHECK(model_for_checkpoint("google/gemma-4-26B-A4B-it").preset == "gemma-4-26b-a4b");
  CHECK(model_for_checkpoint("google/gemma-4-31B-it").preset == "gemma-4-31b");
  CHECK(model_for_checkpoint("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4").preset == "nemotron-3-ultra-550b-a55b");
  CHECK(model_for_checkpoint("nvidia/DeepSeek-R1-0528-FP4-v2").preset == "deepseek-r1");
  CHECK(model_for_checkpoint("/models/DeepSeek-R1-0528-NVFP4-v2").preset == "deepseek-r1");
  // A Hugging Face hub cache: the repository folder names the checkpoint, not the snapshot's commit.
  CHECK(model_for_checkpoint("/root/.cache/huggingface/hub/models--deepseek-ai--DeepSeek-R1-0528/snapshots/4236a6a/")
            .preset == "deepseek-r1");
  CHECK(model_for_checkpoint("/home/models/models--DeepSeek-R1-0528").preset == "deepseek-r1");
  CHECK(
      model_for_checkpoint("/hub/models--Qwen--Qwen3-32B/snapshots/9216db5781bf21249d130ec9da846c4624c16137").preset ==
      "qwen3-32b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-32B/").preset == "qwen3-32b");  // a trailing slash
  // NVIDIA's Nemotron names (aiconfigurator's support matrix): underscores for version dots, an "NVIDIA-" prefix and
  // a context suffix on the Nemotron-H base models.
  CHECK(model_for_checkpoint("nvidia/Llama-3_3-Nemotron-Super-49B-v1").preset == "llama-3.3-nemotron-super-49b-v1");
  CHECK(model_for_checkpoint("nvidia/Llama-3_1-Nemotron-Ultra-253B-v1").preset == "llama-3.1-nemotron-ultra-253b-v1");
  CHECK(model_for_checkpoint("nvidia/Nemotron-H-56B-Base-8K").preset == "nemotron-h-56b");
  CHECK(model_for_checkpoint("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").preset == "nemotron-3-nano-30b-a3b");
  CHECK(model_for_checkpoint("nvidia/NVIDIA-Nemotron-Nano-9B-v2").preset == "nemotron-nano-9b-v2");
  CHECK(model_for_checkpoint("nvidia/NVIDIA-Nemotron-Nano-12B-v2-Base").preset == "nemotron-nano-12b-v2");
  CHECK(model_for_checkpoint("acme/Model_2-3_1").name == "model_2-3.1");  // only an underscore between digits
  CHECK(model_for_checkpoint("acme/model-v0.").preset.empty());           // no version digits: not a release tag
  CHECK(model_for_checkpoint("zai-org/GLM-4.5-Air-FP8").preset == "glm-4.5-air");
  CHECK(model_for_checkpoint("zai-org/GLM-4.6-FP8").preset == "glm-4.7");  // GLM-4.6 has GLM-4.7's figures, said
  CHECK(model_for_checkpoint("zai-org/GLM-4.6-FP8").note.find("GLM-4.6 has GLM-4.7's") != std::string::npos);
  // "-w-" without a following "-a-" format is part of a name, not a recipe.
  CHECK(model_for_checkpoint("acme/model-w-large").preset.empty());
  for (const char* name : {"deepseek-ai/DeepSeek-R1-0528", "openai/gpt-oss-20b"}) {
    INFO(name);
    CHECK(model_for_checkpoint(name).note.empty());
  }
}

TEST_CASE("checkpoint names: another checkpoint's architecture is taken and said; an unknown one is not guessed",
          "[validation][checkpoints]") {
  const auto l33 = model_for_checkpoint("nvidia/Llama-3.3-70B-Instruct-FP8");
  CHECK(l33.preset == "llama-3.1-70b");
  CHECK_THAT(l33.note, Catch::Contains("Llama-3.3-70B") && Catch::Contains("llama-3.1-70b"));
  CHECK(model_for_checkpoint("moonshotai/Kimi-K2-Instruct-0905").preset == "kimi-k2.5");
  CHECK(model_for_checkpoint("moonshotai/Kimi-K2-Thinking").preset == "kimi-k2.5");
  CHECK(model_for_checkpoint("nvidia/DeepSeek-V3.1-NVFP4").preset == "deepseek-v3");
  CHECK(model_for_checkpoint("zai-org/GLM-4.5-FP8").preset == "glm-4.7");
  CHECK(model_for_checkpoint("MiniMaxAI/MiniMax-M2.1").preset == "minimax-m2.5");
  CHECK(model_for_checkpoint("MiniMaxAI/MiniMax-M2").preset == "minimax-m2.5");
  CHECK(model_for_checkpoint("Qwen/Qwen3-VL-235B-A22B-Thinking").preset == "qwen3-235b-a22b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-VL-30B-A3B-Instruct-FP8").preset == "qwen3-30b-a3b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-VL-2B-Instruct").preset == "qwen3-1.7b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-VL-4B-Instruct").preset == "qwen3-4b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-VL-8B-Instruct").preset == "qwen3-8b");
  CHECK(model_for_checkpoint("Qwen/Qwen3-VL-32B-Thinking").preset == "qwen3-32b");
  CHECK(model_for_checkpoint("XiaomiMiMo/MiMo-7B-Base").preset == "mimo-7b");
  CHECK(model_for_checkpoint("zai-org/GLM-4.7-FP8").note.empty());
  CHECK(model_for_checkpoint("Qwen/Qwen3-Next-80B-A3B-Instruct").preset == "qwen3-next-80b-a3b");
  CHECK(model_for_checkpoint("Qwen/Qwen3.5-35B-A3B-FP8").preset == "qwen3.5-35b-a3b");
  CHECK(model_for_checkpoint("Qwen/Qwen3.6-35B-A3B").preset == "qwen3.5-35b-a3b");
  CHECK(model_for_checkpoint("Qwen/Qwen3.6-35B-A3B-FP8").preset == "qwen3.5-35b-a3b");
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-V3.2").preset == "deepseek-v3.2");
  const auto v32_exp = model_for_checkpoint("deepseek-ai/DeepSeek-V3.2-Exp");
  CHECK(v32_exp.preset == "deepseek-v3.2");
  CHECK_THAT(v32_exp.note, Catch::Contains("deepseek-v3.2"));
  CHECK(model_for_checkpoint("zai-org/GLM-5-FP8").preset == "glm-5");
  CHECK(model_for_checkpoint("MiniMaxAI/MiniMax-M2.7").preset == "minimax-m2.7");
  CHECK(model_for_checkpoint("moonshotai/Kimi-K3").preset == "kimi-k3");
  for (const char* m3 : {"MiniMaxAI/MiniMax-M3", "MiniMaxAI/MiniMax-M3-MXFP8", "nvidia/MiniMax-M3-NVFP4",
                         "MiniMaxAI/MiniMax-M3-preview"}) {
    INFO(m3);
    CHECK(model_for_checkpoint(m3).preset == "minimax-m3");
  }
  CHECK(model_for_checkpoint("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8").preset ==
        "llama-4-maverick-17b-128e");
  CHECK(model_for_checkpoint("meta-llama/Llama-4-Scout-17B-16E-Instruct").preset == "llama-4-scout-17b-16e");
  CHECK(model_for_checkpoint("XiaomiMiMo/MiMo-V2-Flash").preset == "mimo-v2-flash");
  CHECK(model_for_checkpoint("Qwen/Qwen3.5-27B").preset == "qwen3.5-27b");
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-V4-Pro").preset == "deepseek-v4-pro");
  CHECK(model_for_checkpoint("zai-org/GLM-4.7-Flash").preset == "glm-4.7-flash");
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-R1-Distill-Llama-70B").preset == "llama-3.1-70b");
  CHECK_THAT(model_for_checkpoint("deepseek-ai/DeepSeek-R1-Distill-Llama-8B").note, Catch::Contains("Llama-3.1-8B"));
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B").preset == "qwen2.5-32b");
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B").preset == "qwen2.5-7b");
  CHECK_THAT(model_for_checkpoint("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B").note, Catch::Contains("Qwen2.5-Math-7B"));
  // Qwen2.5-Math-1.5B's tying of the LM head was not checked, and there is no Qwen2.5-14B preset.
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B").preset.empty());
  CHECK(model_for_checkpoint("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B").preset.empty());
  CHECK(model_for_checkpoint("Qwen/QwQ-32B").preset == "qwen2.5-32b");
  CHECK(model_for_checkpoint("Qwen/QwQ-32B-Preview").preset == "qwen2.5-32b");
  // No preset: the name looked up is reported, no preset is picked. MiMo-V2.5-Pro's shapes are not MiMo-V2-Flash's;
  // a date-like number inside a name is not stripped.
  CHECK(model_for_checkpoint("moonshotai/Kimi-K2.6").preset == "kimi-k2.5");
  CHECK(model_for_checkpoint("nvidia/Kimi-K2.6-NVFP4").preset == "kimi-k2.5");
  CHECK(model_for_checkpoint("moonshotai/Kimi-K2.7-Code").preset == "kimi-k2.5");
  CHECK(model_for_checkpoint("zai-org/GLM-5.1-FP8").preset == "glm-5");
  CHECK(model_for_checkpoint("nvidia/GLM-5.1-NVFP4").preset == "glm-5");
  CHECK_THAT(model_for_checkpoint("zai-org/GLM-5.2").note, Catch::Contains("glm-5"));
  CHECK(model_for_checkpoint("zai-org/GLM-5.3").preset == "glm-5");
  for (const char* path : {"XiaomiMiMo/MiMo-V2.5-Pro", "org/model-1234b", "zai-org/GLM-5.3-Flash"}) {
    INFO(path);
    CHECK(model_for_checkpoint(path).preset.empty());
  }
  CHECK(model_for_checkpoint("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8").name == "qwen3-coder-480b-a35b");
}

TEST_CASE("checkpoint names: a row of another checkpoint maps to the preset, notes it and groups with it",
          "[validation][checkpoints]") {
  traces::MeasuredServingRun r;
  r.id = "row";
  r.model_path = "nvidia/Llama-3.3-70B-Instruct-FP8";
  r.system = "h200_sxm";
  r.backend = "trtllm";
  r.mode = "agg";
  r.isl = 1024;
  r.osl = 128;
  r.concurrency = 8;
  r.gemm_quant_mode = "fp8";
  r.agg = {8, 0, 4, 1, 1, 1, 1};
  r.ttft_ms = 100.0;
  r.tpot_ms = 10.0;
  auto m = validation::map_serving_run(r);
  REQUIRE(std::holds_alternative<validation::MappedRun>(m));
  const auto& run = std::get<validation::MappedRun>(m);
  CHECK(specs::parse_scenario(run.scenario, "row").model.name == "llama-3.1-70b");
  CHECK_THAT(run.notes, Catch::Contains("Llama-3.3-70B has Llama-3.1-70B's config.json figures"));
  CHECK(run.group == "llama-3.1-70b | h200 | trtllm | agg");
  r.model_path = "XiaomiMiMo/MiMo-V2.5-Pro";
  auto u = validation::map_serving_run(r);
  REQUIRE(std::holds_alternative<validation::Unmapped>(u));
  CHECK(std::get<validation::Unmapped>(u).reason ==
        "model_path XiaomiMiMo/MiMo-V2.5-Pro: no model preset mimo-v2.5-pro");
}
