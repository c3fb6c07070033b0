// Engine launch settings: TensorRT-LLM's options YAML, vLLM's and SGLang's flags, and what each sets on a run.
#include <catch2/catch.hpp>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/bench_results.hpp"
#include "fleetcast/traces/server_config.hpp"

using namespace fleetcast;
using namespace fleetcast::traces;

namespace {

// A TensorRT-LLM --extra_llm_api_options file as a DeepSeek-R1 run on 8 B200 was started with.
const char* kTrtOptions = R"(cuda_graph_config:
    enable_padding: true
    max_batch_size: 16
enable_attention_dp: true
print_iter_log: true
kv_cache_config:
    dtype: fp8
    free_gpu_memory_fraction: 0.8
    enable_block_reuse: false
batch_wait_timeout_iters: 40
batch_wait_max_tokens_ratio: 0.8
attention_dp_config:
    batching_wait_iters: 0
    enable_balance: true
    timeout_iters: 60
torch_compile_config:
    capture_num_tokens: [1, 2, 4, 8]
)";

const char* kTrtCommand =
    "PYTHONNOUSERSITE=1 mpirun -n 1 --oversubscribe --allow-run-as-root trtllm-serve /models/DeepSeek-R1-0528-NVFP4-v2 "
    "--port=8888 --trust_remote_code --backend=pytorch --max_num_tokens=8192 --tp_size=8 --ep_size=8 "
    "--extra_llm_api_options=./config.yml";

MeasuredServingRun run_of(const std::string& backend) {
  MeasuredServingRun r;
  r.backend = backend;
  return r;
}

// The InputError applying the settings to a run of `backend` raises; FAIL when none is.
InputError apply_error(const ServerSettings& s, const std::string& backend) {
  MeasuredServingRun r = run_of(backend);
  try {
    apply_server_settings(s, r);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no error");
  return InputError("", "", "", "");
}

std::string value_of(const ServerSettings& s, const std::string& key) {
  std::string v = "(absent)";
  for (const auto& e : s.entries) {
    if (e.key == key) v = e.value;
  }
  return v;
}

}  // namespace

TEST_CASE("a TensorRT-LLM options file flattens its nested keys and names its engine", "[server_config]") {
  const ServerSettings s = parse_server_config(kTrtOptions, "config.yml");
  CHECK(s.engine == "trtllm");  // enable_attention_dp and kv_cache_config are TensorRT-LLM's alone
  CHECK(value_of(s, "kv_cache_config.free_gpu_memory_fraction") == "0.8");
  CHECK(value_of(s, "attention_dp_config.timeout_iters") == "60");
  CHECK(value_of(s, "torch_compile_config.capture_num_tokens") == "1,2,4,8");
  CHECK(value_of(s, "cuda_graph_config.max_batch_size") == "16");
}

TEST_CASE("a trtllm-serve command line: launchers skipped, the model and every flag form read", "[server_config]") {
  const ServerSettings s = parse_server_command(kTrtCommand);
  CHECK(s.engine == "trtllm");
  CHECK(s.model == "/models/DeepSeek-R1-0528-NVFP4-v2");
  CHECK(value_of(s, "tp_size") == "8");
  CHECK(value_of(s, "trust_remote_code") == "true");
  CHECK(value_of(s, "n") == "(absent)");  // mpirun's -n 1 is the launcher's
  CHECK(value_of(s, "oversubscribe") == "(absent)");
  // Its `serve` subcommand spelling.
  CHECK(parse_server_command("trtllm-serve serve nvidia/Llama-3.1-8B-Instruct-FP8 --tp_size 2").model ==
        "nvidia/Llama-3.1-8B-Instruct-FP8");
}

TEST_CASE("TensorRT-LLM: command and options file give attention DP over tp_size GPUs and the scheduler's settings",
          "[server_config]") {
  const ServerSettings both =
      merge_server_settings(parse_server_command(kTrtCommand), parse_server_config(kTrtOptions, "config.yml"));
  const ServerLayout layout = server_layout(both, "trtllm");
  CHECK(layout.tp == 1);  // each of the 8 attention-DP ranks runs its attention on one GPU
  CHECK(layout.attention_dp == 8);
  CHECK(layout.moe_ep == 8);
  CHECK(layout.max_num_seqs == 0);  // not said: the engine's default

  MeasuredServingRun r = run_of("trtllm");
  apply_server_settings(both, r);
  CHECK(r.server_max_num_tokens == 8192);
  CHECK(r.server_batch_wait_iters == 40);
  CHECK(r.server_batch_wait_tokens_ratio == Approx(0.8));
  CHECK(r.server_adp_balance);
  CHECK(r.server_adp_timeout_iters == 60);
  CHECK(r.server_adp_batching_wait_iters == 0);
  CHECK(r.server_free_gpu_memory_fraction == Approx(0.8));
  CHECK(r.server_kv_cache == "fp8");
  // enable_chunked_prefill left out: TensorRT-LLM's default runs prompts whole.
  CHECK(r.server_whole_prompts);
  CHECK(r.notes.find("not modelled: ") != std::string::npos);
  CHECK(r.notes.find("print_iter_log") != std::string::npos);
}

TEST_CASE("TensorRT-LLM reads its options file over its flags; vLLM reads a flag over its --config file",
          "[server_config]") {
  const ServerSettings trt = merge_server_settings(parse_server_command("trtllm-serve m --max_num_tokens 8192"),
                                                   parse_server_config("max_num_tokens: 4096\n", "o.yml"));
  MeasuredServingRun r = run_of("trtllm");
  apply_server_settings(trt, r);
  CHECK(r.server_max_num_tokens == 4096);

  const ServerSettings vllm = merge_server_settings(parse_server_command("vllm serve m --max-num-batched-tokens 2048"),
                                                    parse_server_config("max-num-batched-tokens: 16384\n", "c.yml"));
  MeasuredServingRun v = run_of("vllm");
  apply_server_settings(vllm, v);
  CHECK(v.server_max_num_tokens == 2048);
}

TEST_CASE("vLLM: -tp, data parallel and expert parallel over tp x dp; its memory and chunking flags",
          "[server_config]") {
  const ServerSettings s = parse_server_command(
      "vllm serve MiniMaxAI/MiniMax-M2.5 -tp 2 --data-parallel-size 4 --enable-expert-parallel --max-num-seqs 64 "
      "--gpu-memory-utilization 0.92 --block-size 32 --kv-cache-dtype fp8_e4m3 --long-prefill-token-threshold 2048 "
      "--no-enable-prefix-caching");
  CHECK(s.engine == "vllm");
  CHECK(s.model == "MiniMaxAI/MiniMax-M2.5");
  CHECK(value_of(s, "enable_prefix_caching") == "false");
  const ServerLayout layout = server_layout(s, "vllm");
  CHECK(layout.tp == 2);
  CHECK(layout.attention_dp == 4);
  CHECK(layout.moe_ep == 8);
  CHECK(layout.max_num_seqs == 64);
  MeasuredServingRun r = run_of("vllm");
  apply_server_settings(s, r);
  CHECK(r.server_gpu_memory_utilization == Approx(0.92));
  CHECK(r.server_kv_block_tokens == 32);
  CHECK(r.server_kv_cache == "fp8");
  CHECK(r.server_chunk_tokens == 2048);
  CHECK_FALSE(r.server_whole_prompts);  // vLLM chunks unless told not to
  // Online quantisation sets the weights' format unless the run states one; a method the models do not know is noted.
  MeasuredServingRun q = run_of("vllm");
  apply_server_settings(parse_server_command("vllm serve m --quantization fp8"), q);
  CHECK(q.precision == "fp8");
  MeasuredServingRun stated = run_of("vllm");
  stated.precision = "bf16";
  apply_server_settings(parse_server_command("vllm serve m --quantization modelopt_fp4"), stated);
  CHECK(stated.precision == "bf16");
  MeasuredServingRun odd = run_of("sglang");
  apply_server_settings(parse_server_command("python -m sglang.launch_server --quantization bitsandbytes"), odd);
  CHECK(odd.precision.empty());
  CHECK(odd.notes.find("not modelled: quantization bitsandbytes") != std::string::npos);
}

TEST_CASE("SGLang: DP attention splits tp_size, -1 turns chunking off, a list flag takes its numbers",
          "[server_config]") {
  const ServerSettings s = parse_server_command(
      "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 --dp 4 --enable-dp-attention "
      "--ep-size 8 --chunked-prefill-size -1 --mem-fraction-static 0.85 --cuda-graph-bs 1 2 4 64 "
      "--max-running-requests 512 --enable-mixed-chunk --scheduler-recv-interval 10");
  CHECK(s.engine == "sglang");
  CHECK(s.model == "deepseek-ai/DeepSeek-R1");
  const ServerLayout layout = server_layout(s, "sglang");
  CHECK(layout.tp == 2);
  CHECK(layout.attention_dp == 4);
  CHECK(layout.moe_ep == 8);
  MeasuredServingRun r = run_of("sglang");
  apply_server_settings(s, r);
  CHECK(r.server_whole_prompts);
  CHECK(r.server_gpu_memory_utilization == Approx(0.85));
  CHECK(r.server_cuda_graph_max_bs == 64);
  CHECK(r.server_max_running == 512);
  CHECK(r.server_mixed_chunk);
  CHECK(r.server_recv_interval == 10);
}

TEST_CASE("shell quoting and line joins are read as a launch script writes them", "[server_config]") {
  const ServerSettings s =
      parse_server_command("vllm serve 'my model' \\\n  --max-num-seqs \"128\" \\\n  --served-model-name a\\ b");
  CHECK(s.model == "my model");
  CHECK(value_of(s, "max_num_seqs") == "128");
  CHECK(value_of(s, "served_model_name") == "a b");
  CHECK_THROWS_AS(parse_server_command("vllm serve 'm --tp 2"), InputError);
}

TEST_CASE("bad settings name the source, the key and the value", "[server_config]") {
  SECTION("YAML that does not parse: the file and the line") {
    try {
      parse_server_config("max_batch_size: 8\nkv_cache_config: [a, b\n", "bad.yml");
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.file() == "bad.yml");
      CHECK(e.field().starts_with("line "));
    }
  }
  SECTION("another engine's key") {
    const InputError e = apply_error(parse_server_config("max_batch_size: 8\n", "trt.yml"), "vllm");
    CHECK(e.file() == "trt.yml");
    CHECK(e.value() == "trtllm");  // the settings are TensorRT-LLM's
  }
  SECTION("keys of two engines in one file") {
    const ServerSettings s = parse_server_config("max_batch_size: 8\nmem_fraction_static: 0.8\n", "mixed.yml");
    CHECK(s.engine.empty());
    CHECK_THROWS_WITH(server_engine(s, ""), Catch::Contains("mem_fraction_static"));
  }
  SECTION("a fraction above one") {
    const InputError e =
        apply_error(parse_server_config("kv_cache_config:\n  free_gpu_memory_fraction: 1.5\n", "f.yml"), "trtllm");
    CHECK(e.field() == "kv_cache_config.free_gpu_memory_fraction");
    CHECK(e.value() == "1.5");
  }
  SECTION("SGLang data parallel without DP attention is several engines") {
    CHECK_THROWS_AS(server_layout(parse_server_command("python -m sglang.launch_server --tp 2 --dp 2"), "sglang"),
                    InputError);
  }
  SECTION("attention DP with no GPU count") {
    CHECK_THROWS_AS(server_layout(parse_server_config("enable_attention_dp: true\n", "a.yml"), "trtllm"), InputError);
  }
}

TEST_CASE("the settings fill the deployment the flags left open and refuse one they contradict", "[server_config]") {
  const ServerSettings s = parse_server_command("trtllm-serve nvidia/DeepSeek-R1-0528-FP4-v2 --tp_size 4 --ep_size 4");
  BenchDeployment given;
  given.hardware = "b200";
  take_server_settings(s, given, {});
  CHECK(given.runtime == "trtllm");
  CHECK(given.model == "nvidia/DeepSeek-R1-0528-FP4-v2");
  CHECK(given.tp == 4);
  CHECK(given.ep == 4);

  BenchDeployment flags;
  flags.tp = 8;
  LayoutFieldsGiven set;
  set.tp = true;
  CHECK_THROWS_AS(take_server_settings(s, flags, set), InputError);

  BenchDeployment other;
  other.runtime = "vllm";
  CHECK_THROWS_AS(take_server_settings(s, other, {}), InputError);
}

namespace {

// The run after applying a launch: its speculative method and drafts per step.
MeasuredServingRun applied(const ServerSettings& s, const std::string& backend) {
  MeasuredServingRun r = run_of(backend);
  r.model_path = s.model;
  apply_server_settings(s, r);
  return r;
}

}  // namespace

TEST_CASE("speculative decoding as each engine's launch sets it: MTP drafts per step, other methods by name",
          "[server_config]") {
  SECTION("TensorRT-LLM's speculative_config: MTP with its count, MTP's default of one, Eagle3 by name") {
    const auto mtp = applied(
        parse_server_config("speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 3\n", "t.yml"),
        "trtllm");
    CHECK(mtp.spec_method == "mtp");
    CHECK(mtp.spec_draft_tokens == 3);
    const auto one = applied(parse_server_config("speculative_config:\n  decoding_type: MTP\n", "t.yml"), "trtllm");
    CHECK(one.spec_draft_tokens == 1);
    const auto eagle = applied(
        parse_server_config("speculative_config:\n  decoding_type: Eagle3\n  max_draft_len: 3\n", "t.yml"), "trtllm");
    CHECK(eagle.spec_method == "Eagle3");
    CHECK(eagle.spec_draft_tokens == 3);
  }
  SECTION("vLLM's --speculative-config JSON is read as nested keys; an MTP method or no draft model is MTP") {
    const ServerSettings s = parse_server_command(
        R"(vllm serve deepseek-ai/DeepSeek-R1 -tp 8 --speculative-config '{"method": "deepseek_mtp", "num_speculative_tokens": 2}')");
    CHECK(s.engine == "vllm");
    CHECK(value_of(s, "speculative_config.num_speculative_tokens") == "2");
    const auto mtp = applied(s, "vllm");
    CHECK(mtp.spec_method == "mtp");
    CHECK(mtp.spec_draft_tokens == 2);
    CHECK(applied(parse_server_command(R"(vllm serve m --speculative-config '{"num_speculative_tokens": 1}')"), "vllm")
              .spec_method == "mtp");
    const auto eagle = applied(
        parse_server_command(
            R"(vllm serve m --speculative-config '{"method": "eagle3", "model": "a/b-eagle3", "num_speculative_tokens": 3}')"),
        "vllm");
    CHECK(eagle.spec_method == "eagle3");
    CHECK_THROWS_AS(parse_server_command("vllm serve m --speculative-config '{method: mtp'"), InputError);
  }
  SECTION("SGLang: EAGLE over the checkpoint's own layers or NEXTN is MTP; a draft model or top-k trees are not") {
    const auto chain =
        applied(parse_server_command("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 8 "
                                     "--speculative-algorithm EAGLE --speculative-num-steps 3 "
                                     "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4"),
                "sglang");
    CHECK(chain.spec_method == "mtp");
    CHECK(chain.spec_draft_tokens == 3);
    // A chain verifies its drafts plus one token: 4 verified tokens are 3 drafts.
    const auto nextn = applied(parse_server_command("sglang serve m --speculative-algorithm NEXTN "
                                                    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4"),
                               "sglang");
    CHECK(nextn.spec_method == "mtp");
    CHECK(nextn.spec_draft_tokens == 3);
    const auto trees = applied(parse_server_command("sglang serve m --speculative-algorithm EAGLE "
                                                    "--speculative-num-steps 3 --speculative-eagle-topk 4"),
                               "sglang");
    CHECK(trees.spec_method == "EAGLE with top-4 draft trees");
    const auto draft = applied(parse_server_command("sglang serve m --speculative-algorithm EAGLE "
                                                    "--speculative-draft-model-path x/eagle --speculative-num-steps 3"),
                               "sglang");
    CHECK(draft.spec_method == "EAGLE with the draft model x/eagle");
    // Steps without an algorithm: SGLang does not speculate.
    CHECK(applied(parse_server_command("sglang serve m --speculative-num-steps 3"), "sglang").spec_method.empty());
  }
  SECTION("a brace-started value of a key not modelled stays as written") {
    const ServerSettings s = parse_server_config("chat_template: \"{% for m in messages %}\"\n", "c.yml");
    CHECK(value_of(s, "chat_template") == "{% for m in messages %}");
  }
}
