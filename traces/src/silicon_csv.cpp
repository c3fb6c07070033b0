// The silicon CSV of ai-dynamo/aiconfigurator (systems/silicon_sample.csv): one measured benchmark point per
// row, the layout in *_size columns, the closed-loop concurrency inside silicon_data_source.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <variant>

#include "csv_fields.hpp"
#include "engine_names.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/serving_results.hpp"
#include "request_trace_rows.hpp"

namespace fleetcast::traces {
namespace {

// Rows measured by InferenceX (SemiAnalysis's nightly serving benchmark), as aiconfigurator's file names them: its
// database dump ("db-dump/2026-04-27; config_id=...; workflow_run_id=...") and its dashboard export
// ("source_file=2026-03-25.csv; model=...; silicon_concurrency=...; measured=...; wip=...").
bool measured_by_inferencex(const std::string& source) {
  static const std::regex db_dump("^db-dump/[^;]*;.*\\bworkflow_run_id=[0-9]+");
  static const std::regex dashboard("^source_file=[0-9]{4}-[0-9]{2}-[0-9]{2}\\.csv;.*\\bwip=(True|False)");
  return std::regex_search(source, db_dump) || std::regex_search(source, dashboard);
}

// Rows aiconfigurator's team measured for its gap analyses ("source_file=.../aic-auto-gap-analysis/data/...",
// "source_file=qwen3.5-397b-gap-analysis.csv").
bool measured_by_aiconfigurator(const std::string& source) {
  static const std::regex gap_analysis("^source_file=[^;]*gap-analysis");
  return std::regex_search(source, gap_analysis);
}

// InferenceX's later exports (its 2026-04-06 dashboard file and its database dump) write an expert-parallel run's
// layout multiplied by its EP degree: a 4-GPU run at tp 4, ep 4 comes out as tp_size 16, moe_tp_size 4, moe_ep_size 4
// (SGLang, TensorRT-LLM), as tp_size 1, attention_dp_size 16 with attention data parallelism (TensorRT-LLM), or as
// tp_size 4, attention_dp_size 4, moe_ep_size 16 (vLLM). The same measurements exported correctly show it (equal
// TTFT to 0.1 ms: Qwen3.5-397B on B200 under SGLang, 2026-03-25 export and aiconfigurator's gap analysis tp 4,
// moe_tp 1, moe_ep 4; the dump and the 2026-04-06 file tp 16, moe_tp 4, moe_ep 4), and so do the 2026-04-06 ids,
// which name the run's "_tp4_ep4". InferenceX's tp is the run's GPU count (one node); its ep divides it.
// The layout is read back as tp X (or attention DP X where the export wrote tp_size 1), moe_ep Y, moe_tp X / Y:
// from the id where it names tp and ep, else, for the database dump (whose ids name only a config number), from the
// three export patterns, each only where the columns match it exactly; a run whose columns already give X GPUs is
// left as it is. Returns what was read, for the row's notes.
std::string restore_expert_parallel_layout(MeasuredServingRun& r, const std::string& source) {
  MeasuredLayout& l = r.agg;
  if (r.mode != "agg" || l.moe_ep <= 1 || l.tp <= 0) return "";
  const int tp = l.tp, dp = std::max(l.attention_dp, 1), moe_tp = l.moe_tp, ep = l.moe_ep;
  int gpus = 0, ep_degree = 0;
  bool attention_dp = false;
  static const std::regex id_layout("_tp([0-9]+)_ep([0-9]+)_");
  std::smatch m;
  const bool dump = source.starts_with("db-dump/");
  if (std::regex_search(r.id, m, id_layout)) {
    gpus = std::stoi(m[1].str());
    ep_degree = std::stoi(m[2].str());
    attention_dp = tp == 1 && dp > 1;
  } else if (!dump) {
    return "";
  } else if (dp == 1 && moe_tp > 1 && tp == moe_tp * ep) {
    gpus = moe_tp;
    ep_degree = ep;
  } else if (tp == 1 && moe_tp > 1 && dp == moe_tp * ep) {
    gpus = moe_tp;
    ep_degree = ep;
    attention_dp = true;
  } else if (moe_tp <= 1 && tp > 1 && dp > 1 && ep == tp * dp) {
    gpus = tp;
    ep_degree = dp;
  }
  if (gpus <= 0 || ep_degree <= 0 || gpus % ep_degree != 0 || tp * dp == gpus) return "";
  const std::string was = "tp_size " + std::to_string(tp) + ", attention_dp_size " + std::to_string(dp) +
                          ", moe_tp_size " + std::to_string(moe_tp) + ", moe_ep_size " + std::to_string(ep);
  l.tp = attention_dp ? 1 : gpus;
  l.attention_dp = attention_dp ? gpus : 1;
  l.moe_ep = ep_degree;
  l.moe_tp = gpus / ep_degree;
  return "layout " + std::to_string(gpus) + " GPUs, ep " + std::to_string(ep_degree) +
         (attention_dp ? " with attention DP" : "") + ": the InferenceX export wrote " + was +
         ", the GPU count times ep";
}

// As validation's text.hpp lower(); traces sits below validation and cannot include it.
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The backend column's engine under the names the mapping knows (vllm, sglang, trtllm, atom): other spellings of the
// same (case, "TensorRT-LLM", "trt") and an engine behind an orchestrator ("dynamo-trt", "mori-sglang") read as
// them; anything else is kept, lower-cased, and left unmapped.
std::string canonical_backend(const std::string& backend) {
  const std::string b = lower(backend), engine = detail::engine_of(b);
  return engine.empty() ? b : engine;
}

// What the reader assumed about a row, one clause more ("a; b").
void add_note(MeasuredServingRun& r, const std::string& note) { r.notes += (r.notes.empty() ? "" : "; ") + note; }

// Whether the row's system is `gpu` ("h200" for "h200_sxm"), written in any case.
bool on_gpu(const MeasuredServingRun& r, const char* gpu) { return lower(r.system).starts_with(gpu); }

// A memory fraction as the launch flag writes it (0.95, 0.835, 0.8).
std::string fraction_text(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", f);
  return buf;
}

// Its DeepSeek-V4 vLLM scripts (benchmarks/single_node/fixed_seq_len/dsv4*_vllm.sh and dsv4_fp8_h200.sh, read at
// SemiAnalysisAI/InferenceX 8eec0d4, the B200 Pro one also at 045984b, the V4-Flash one at 0425b5b) all start vLLM
// with --block-size 256 and set the step budget per GPU: V4-Pro FP8 on H200 512 tokens (and
// --gpu-memory-utilization 0.95); V4-Pro FP4 on B200 8,192 at 8,192-token prompts up to 128 clients, else 2,048; on
// B300 2,048 with attention DP, else twice the prompt; V4-Flash FP8 on B200 8,192 (0.95). On MI355X the FP4 script
// keeps vLLM's budget and block size at --gpu-memory-utilization 0.8.
void set_inferencex_deepseek_v4_vllm_settings(MeasuredServingRun& r) {
  const std::string model = lower(r.model_path), precision = lower(r.precision);
  const bool pro = model.find("deepseek-v4-pro") != std::string::npos;
  const bool flash = model.find("deepseek-v4-flash") != std::string::npos;
  const auto on = [&r](const char* gpu) { return on_gpu(r, gpu); };
  int budget = 0, block = 256;
  double memory = 0.0;
  if (pro && on("h200") && precision == "fp8") {
    budget = 512;
    memory = 0.95;
  } else if (pro && on("b200") && precision == "fp4") {
    budget = r.isl == 8192 && r.concurrency <= 128 ? 8192 : 2048;
  } else if (pro && on("b300") && precision == "fp4") {
    budget = r.agg.attention_dp > 1 ? 2048 : 2 * r.isl;
  } else if (flash && on("b200") && precision == "fp8") {
    budget = 8192;
    memory = 0.95;
  } else if (pro && on("mi355x") && precision == "fp4") {
    block = 0;
    memory = 0.8;
  } else {
    return;  // a script not read: the engine's defaults
  }
  r.server_max_num_tokens = budget;
  r.server_kv_block_tokens = block;
  r.server_gpu_memory_utilization = memory;
  std::string note = "vLLM as InferenceX's DeepSeek-V4 scripts start it:";
  if (budget > 0) note += " --max-num-batched-tokens " + std::to_string(budget);
  if (block > 0) note += " --block-size " + std::to_string(block);
  if (memory > 0.0) note += " --gpu-memory-utilization " + fraction_text(memory);
  add_note(r, note);
}

// Its DeepSeek-V4-Pro SGLang and TensorRT-LLM scripts (dsv4_fp4_b200.sh, dsv4_fp4_b300_sglang.sh,
// dsv4_fp8_h200_sglang.sh, dsv4_fp4_mi355x_sglang.sh, dsv4_fp8_mi355x.sh, dsv4_fp4_{b200,b300}_trt.sh, read at
// SemiAnalysisAI/InferenceX 8eec0d4). SGLang: --chunked-prefill-size 8192 (32768 on B200 with attention DP; on B300
// with attention DP 16384, or 65536 at 2,048, 4,096 and 8,192 clients; 4096 on H200) and --mem-fraction-static 0.90
// (B300 with attention DP 0.94, or 0.87 / 0.835 / 0.80 at those client counts; H200 0.88), --page-size 256 on
// MI355X. Their --max-running-requests (1.5 x the clients, or a fixed 768 or 256 in some branches), prefill delayer
// and MI355X FP8's disabled CUDA graphs are not modelled. TensorRT-LLM: no enable_chunked_prefill (prompts whole),
// --max_num_tokens max(ISL + OSL + 256, 8192), tokens_per_block 128; its free_gpu_memory_fraction 0.5 (KV from half
// the memory the weights leave) has no counterpart in the deployment's gpu_memory_utilization and is not modelled.
void set_inferencex_deepseek_v4_pro_settings(MeasuredServingRun& r) {
  const std::string precision = lower(r.precision);
  const auto on = [&r](const char* gpu) { return on_gpu(r, gpu); };
  const bool dp = r.agg.attention_dp > 1;
  std::string note;
  if (r.backend == "sglang") {
    int chunk = 0, page = 0;
    double memory = 0.0;
    if (on("b200") && precision == "fp4") {
      chunk = dp ? 32768 : 8192;
      memory = 0.90;
    } else if (on("b300") && precision == "fp4") {
      const int c = r.concurrency;
      const bool huge = dp && (c == 2048 || c == 4096 || c == 8192);
      chunk = huge ? 65536 : dp ? 16384 : 8192;
      memory = !dp ? 0.90 : c == 2048 ? 0.87 : c == 4096 ? 0.835 : c == 8192 ? 0.80 : 0.94;
    } else if (on("h200") && precision == "fp8") {
      chunk = 4096;
      memory = 0.88;
    } else if (on("mi355x") && (precision == "fp4" || precision == "fp8")) {
      chunk = 8192;
      page = 256;
    } else {
      return;
    }
    r.server_chunk_tokens = chunk;
    r.server_kv_block_tokens = page;
    r.server_gpu_memory_utilization = memory;
    note = "SGLang as InferenceX's DeepSeek-V4 scripts start it: --chunked-prefill-size " + std::to_string(chunk);
    if (memory > 0.0) note += " --mem-fraction-static " + fraction_text(memory);
    if (page > 0) note += " --page-size " + std::to_string(page);
  } else if (r.backend == "trtllm" && (on("b200") || on("b300")) && precision == "fp4") {
    r.server_whole_prompts = true;
    r.server_max_num_tokens = std::max(r.isl + r.osl + 256, 8192);
    r.server_kv_block_tokens = 128;
    note = "TensorRT-LLM as InferenceX's DeepSeek-V4 scripts start it: prompts whole, max_num_tokens " +
           std::to_string(r.server_max_num_tokens) +
           ", tokens_per_block 128 (free_gpu_memory_fraction 0.5 not "
           "modelled)";
  } else {
    return;
  }
  add_note(r, note);
}

// Its GLM-5 SGLang scripts (glm5_{fp8,fp4}_{b200,b300}.sh, glm5_fp8_h200.sh, glm5_fp8_mi355x.sh and
// glm5.1_fp4_mi355x.sh, read at SemiAnalysisAI/InferenceX 8eec0d4; the B300 ones reuse B200's recipe): on B200 and
// B300 --chunked-prefill-size = --max-prefill-tokens 32768 with --mem-fraction-static 0.85 (FP8) or 0.9 (FP4, and
// --scheduler-recv-interval 10); --kv-cache-dtype fp8_e4m3 everywhere but H200, whose script passes only
// --mem-fraction-static 0.85 (the KV cache stays BF16); MI355X 0.85.
void set_inferencex_glm5_settings(MeasuredServingRun& r) {
  const std::string precision = lower(r.precision);
  const bool blackwell = on_gpu(r, "b200") || on_gpu(r, "b300");
  std::string note = "SGLang as InferenceX's GLM-5 scripts start it:";
  if (blackwell && (precision == "fp8" || precision == "fp4")) {
    r.server_chunk_tokens = r.server_max_num_tokens = 32768;
    r.server_gpu_memory_utilization = precision == "fp8" ? 0.85 : 0.9;
    r.server_kv_cache = "fp8";
    note += " --chunked-prefill-size and --max-prefill-tokens 32768";
    if (precision == "fp4") {
      r.server_recv_interval = 10;
      note += ", --scheduler-recv-interval 10";
    }
  } else if (on_gpu(r, "h200") && precision == "fp8") {
    r.server_gpu_memory_utilization = 0.85;
    r.server_kv_cache = "bf16";
    note += " no --kv-cache-dtype (KV cache BF16)";
  } else if (on_gpu(r, "mi355x") && (precision == "fp8" || precision == "fp4")) {
    r.server_gpu_memory_utilization = 0.85;
    r.server_kv_cache = "fp8";
  } else {
    return;
  }
  if (r.server_kv_cache == "fp8") note += " --kv-cache-dtype fp8_e4m3";
  add_note(r, note + " --mem-fraction-static " + fraction_text(r.server_gpu_memory_utilization));
}

// Its Kimi-K2.5 vLLM scripts (kimik2.5_{fp4,int4}_{b200,b300}.sh, kimik2.5_int4_{h200,mi325x}.sh and
// kimik2.5_fp4_mi355x.sh, read at SemiAnalysisAI/InferenceX 8eec0d4): only the B200 FP4 one sets --kv-cache-dtype fp8
// (with --max-num-batched-tokens 2 x ISL and --gpu-memory-utilization 0.90); the others leave the MLA cache in BF16,
// at --gpu-memory-utilization 0.90 (B300 FP4, MI355X FP4, whose --block-size is 1) or 0.95 (the INT4 ones; MI325X's
// --block-size 64).
void set_inferencex_kimi_k25_settings(MeasuredServingRun& r) {
  const std::string precision = lower(r.precision);
  const bool blackwell = on_gpu(r, "b200") || on_gpu(r, "b300");
  std::string note = "vLLM as InferenceX's Kimi-K2.5 scripts start it:";
  if (on_gpu(r, "b200") && precision == "fp4") {
    r.server_max_num_tokens = 2 * r.isl;
    r.server_gpu_memory_utilization = 0.90;
    r.server_kv_cache = "fp8";
    add_note(r, note + " --max-num-batched-tokens " + std::to_string(r.server_max_num_tokens) +
                    " --kv-cache-dtype fp8 --gpu-memory-utilization 0.9");
    return;
  }
  if (on_gpu(r, "b300") && precision == "fp4") {
    r.server_gpu_memory_utilization = 0.90;
  } else if (on_gpu(r, "mi355x") && precision == "fp4") {
    r.server_gpu_memory_utilization = 0.90;
    r.server_kv_block_tokens = 1;
  } else if ((blackwell || on_gpu(r, "h200")) && precision == "int4") {
    r.server_gpu_memory_utilization = 0.95;
  } else if (on_gpu(r, "mi325x") && precision == "int4") {
    r.server_gpu_memory_utilization = 0.95;
    r.server_kv_block_tokens = 64;
  } else {
    return;
  }
  r.server_kv_cache = "bf16";
  note +=
      " no --kv-cache-dtype (KV cache BF16) --gpu-memory-utilization " + fraction_text(r.server_gpu_memory_utilization);
  if (r.server_kv_block_tokens > 0) note += " --block-size " + std::to_string(r.server_kv_block_tokens);
  add_note(r, note);
}

// The engine settings InferenceX's launch scripts give its TensorRT-LLM, SGLang and vLLM servers.
void set_inferencex_launch_settings(MeasuredServingRun& r) {
  const auto add_note = [&r](const std::string& note) { traces::add_note(r, note); };
  // The scripts are per model; names are matched without case (exports differ in how they write them).
  const std::string model = lower(r.model_path);
  if (r.backend == "trtllm" && r.mode == "agg" && model.find("llama-3.1-70b") != std::string::npos) {
    // Its Llama-3.1-70B TensorRT-LLM scripts (benchmarks/70b_{fp8,fp4}_{b200,h200}_trt*.sh) start trtllm-serve
    // with --max_num_tokens 16384 (one H200 variant passes MAX_MODEL_LEN) and no enable_chunked_prefill, so a
    // prompt is prefilled whole; at 1,024 x 1,024 below TP 8 its extra options add batch_wait_timeout_iters 20
    // and batch_wait_max_tokens_ratio 0.9 ("will improve the performance", the script says).
    r.server_whole_prompts = true;
    r.server_max_num_tokens = 16384;
    std::string note =
        "TensorRT-LLM as InferenceX's Llama-3.1-70B scripts start it: prompts whole, max_num_tokens 16384";
    if (r.isl == 1024 && r.osl == 1024 && r.agg.tp < 8) {
      r.server_batch_wait_iters = 20;
      r.server_batch_wait_tokens_ratio = 0.9;
      note += ", batch_wait_timeout_iters 20, batch_wait_max_tokens_ratio 0.9";
    }
    add_note(note);
  }
  if (r.backend == "sglang" && r.mode == "agg" && model.find("qwen3.5") != std::string::npos) {
    // Its Qwen3.5 SGLang scripts (benchmarks/single_node/fixed_seq_len/qwen3.5_{bf16,fp4,fp8}_{b200,b300,h200}.sh)
    // poll for new requests every --scheduler-recv-interval decode steps: 30 above 4 clients (else 10) in the B200
    // FP8 and FP4 ones, 30 from 16 clients (else 10) in the B200 BF16 and the B300 FP4 and BF16 ones, always 10 in
    // the B300 FP8 one; the H200 FP8 one leaves SGLang's default (every step). With clients in lockstep the engine
    // idles between waves and receives at once, so this shows only when the clients drift apart
    // (--benchmark-clients).
    const bool b200 = r.system.rfind("b200", 0) == 0, b300 = r.system.rfind("b300", 0) == 0;
    if (b200 && (r.precision == "fp8" || r.precision == "fp4")) {
      r.server_recv_interval = r.concurrency > 4 ? 30 : 10;
    } else if ((b200 && r.precision == "bf16") || (b300 && (r.precision == "fp4" || r.precision == "bf16"))) {
      r.server_recv_interval = r.concurrency >= 16 ? 30 : 10;
    } else if (b300 && r.precision == "fp8") {
      r.server_recv_interval = 10;
    }
    if (r.server_recv_interval > 1) {
      add_note("SGLang as InferenceX's scripts start it: --scheduler-recv-interval " +
               std::to_string(r.server_recv_interval));
    }
  }
  if (r.backend == "vllm" && model.find("gpt-oss") != std::string::npos && (on_gpu(r, "h100") || on_gpu(r, "h200"))) {
    // Its gpt-oss vLLM scripts for Hopper (benchmarks/gptoss_fp4_{h100,h200}*.sh) pass no --kv-cache-dtype, where
    // the B200 one sets fp8: the KV cache stays in the model's BF16, not the FP8 a quantized row is given.
    r.server_kv_cache = "bf16";
    add_note("vLLM as InferenceX's gpt-oss Hopper scripts start it: KV cache BF16 (no --kv-cache-dtype)");
  }
  if (r.backend == "vllm" && r.mode == "agg" && model.find("deepseek-v4") != std::string::npos) {
    set_inferencex_deepseek_v4_vllm_settings(r);
  }
  if (r.mode == "agg" && model.find("deepseek-v4-pro") != std::string::npos) set_inferencex_deepseek_v4_pro_settings(r);
  if (r.backend == "sglang" && r.mode == "agg" && model.find("glm-5") != std::string::npos &&
      model.find("flash") == std::string::npos) {
    set_inferencex_glm5_settings(r);
  }
  if (r.backend == "vllm" && r.mode == "agg" && model.find("kimi-k2.5") != std::string::npos) {
    set_inferencex_kimi_k25_settings(r);
  }
  if (r.backend == "sglang" && r.mode == "agg" && model.find("deepseek-r1") != std::string::npos) {
    // Its DeepSeek-R1 SGLang scripts for AMD's GPUs (benchmarks/single_node/fixed_seq_len/dsr1_{fp8,fp4}_mi3*.sh,
    // after AMD's ROCm SGLang recipe) raise --chunked-prefill-size and --max-prefill-tokens together: 131072 on
    // MI300X and MI325X (FP8), 196608 on MI355X, but 32768 for MI355X FP4 at 8,192 x 1,024 above 32 clients. So a
    // prefill batch takes many whole prompts where SGLang's default (16384) takes two of 8,192 tokens. The scripts'
    // --num-continuous-decode-steps (4, 8 on MI355X FP8) changes nothing: SGLang still declares it but has read it
    // nowhere since its overlap scheduler replaced the multi-step decode loop (#2095, 2024-11). As read at InferenceX
    // 8eec0d4 (0762e65 for MI325X); the scripts change over time and a row does not say which one ran it.
    const std::string system = lower(r.system), precision = lower(r.precision);
    const bool mi300 = system.rfind("mi300x", 0) == 0 || system.rfind("mi325x", 0) == 0;
    const bool mi355 = system.rfind("mi355x", 0) == 0;
    int size = 0;
    if (mi300 && precision == "fp8") size = 131072;
    if (mi355 && (precision == "fp8" || precision == "fp4")) size = 196608;
    if (mi355 && precision == "fp4" && r.isl == 8192 && r.osl == 1024 && r.concurrency > 32) size = 32768;
    if (size > 0) {
      r.server_max_num_tokens = size;
      r.server_chunk_tokens = size;
      add_note(
          "SGLang as InferenceX's DeepSeek-R1 scripts start it on AMD: --chunked-prefill-size and "
          "--max-prefill-tokens " +
          std::to_string(size) + " (--num-continuous-decode-steps: read nowhere in SGLang since #2095)");
    }
  }
}

// The engine settings aiconfigurator's generator writes for the servers its gap analyses measure.
void set_generator_launch_settings(MeasuredServingRun& r) {
  if (r.backend == "sglang" && r.mode == "agg" &&
      (r.backend_version == "0.5.4.post3" || r.backend_version == "0.5.6.post2")) {
    // The generator's SGLang rule sets enable_mixed_chunk for agg workers, and its argument templates for
    // these two versions pass it as --enable-mixed-chunk (generator/config/backend_templates/sglang/
    // cli_args.0.5.4.post3.j2, cli_args.0.5.6.post2.j2); 0.5.1.post1's and the generic template spell the key
    // enable-mix-chunk, which the rule never sets, so other versions run without it. The rule's
    // max_prefill_tokens = isl + 1500 is not taken: at that budget Llama-3.1-8B on H200 could not have served
    // its measured 448 clients of 1,000 tokens (3.6 prompts per step needed, at most 2 fit).
    r.server_mixed_chunk = true;
    r.notes = "SGLang as aiconfigurator's generator starts it: --enable-mixed-chunk";
  }
  if (r.backend == "trtllm" && r.mode == "agg") {
    // The gap analyses deploy what aiconfigurator's generator writes (generator/rule_plugin/trtllm.rule and
    // its extra_engine_args templates, TensorRT-LLM 1.0 to 1.3): enable_chunked_prefill false, so a prompt is
    // prefilled whole, and max_num_tokens = ceil32(max_batch_size + isl + 1500), room for one prompt beside
    // the running decodes, where the rules have first raised max_batch_size to 512 (to 2 x batch from 512 up).
    const int engine_batch = r.agg.batch_size < 512 ? 512 : 2 * r.agg.batch_size;
    r.server_whole_prompts = true;
    r.server_max_num_tokens = (engine_batch + r.isl + 1500 + 31) / 32 * 32;
    r.notes = "TensorRT-LLM as aiconfigurator's generator starts it: prompts whole, max_num_tokens " +
              std::to_string(r.server_max_num_tokens);
  }
}

struct BadCell {
  std::string column, value, reason;
};

class SiliconRowReader {
 public:
  SiliconRowReader(const std::vector<std::string>& header, const std::string& file) : file_(file) {
    for (std::size_t i = 0; i < header.size(); ++i) index_[header[i]] = i;
    for (const char* required :
         {"id", "backend", "model_path", "system", "mode", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms"}) {
      if (!index_.count(required)) {
        throw InputError(file, "header", required, "the silicon CSV has no such column");
      }
    }
  }

  // The row as a run, or the first cell that makes it unusable.
  std::variant<MeasuredServingRun, BadCell> read(const std::vector<std::string>& f, long line) const {
    MeasuredServingRun r;
    r.line = line;
    r.id = text(f, "id");
    if (r.id.empty()) return BadCell{"id", "", "empty: every row needs its id"};
    r.backend = canonical_backend(text(f, "backend"));
    r.backend_version = text(f, "backend_version");
    r.model_path = text(f, "model_path");
    r.system = text(f, "system");
    r.precision = text(f, "precision");
    r.gemm_quant_mode = text(f, "gemm_quant_mode");
    r.moe_quant_mode = text(f, "moe_quant_mode");
    r.mode = text(f, "mode");
    std::optional<BadCell> bad;
    auto whole = [&](const std::string& column, bool required) -> int {
      const std::string v = text(f, column);
      if (v.empty()) {
        if (required && !bad) bad = BadCell{column, v, "empty"};
        return 0;
      }
      const auto n = detail::parse_integer(v);
      if (!n || *n < 0 || *n > 100000000) {
        if (!bad) bad = BadCell{column, v, "not a whole number >= 0"};
        return 0;
      }
      return static_cast<int>(*n);
    };
    auto positive = [&](const std::string& column) -> double {
      const std::string v = text(f, column);
      const auto x = detail::parse_number(v);
      if (!x || *x <= 0.0) {
        if (!bad) bad = BadCell{column, v, "not a positive number"};
        return 0.0;
      }
      return *x;
    };
    r.isl = whole("isl", true);
    r.osl = whole("osl", true);
    if (!bad && r.isl < 1) bad = BadCell{"isl", text(f, "isl"), "must be >= 1"};
    if (!bad && r.osl < 1) bad = BadCell{"osl", text(f, "osl"), "must be >= 1"};
    auto layout = [&](const std::string& prefix, bool with_workers) {
      MeasuredLayout l;
      l.batch_size = whole(prefix + "batch_size", false);
      if (with_workers) l.num_workers = whole(prefix + "num_workers", false);
      l.tp = whole(prefix + "tp_size", false);
      l.pp = whole(prefix + "pp_size", false);
      l.attention_dp = whole(prefix + "attention_dp_size", false);
      l.moe_tp = whole(prefix + "moe_tp_size", false);
      l.moe_ep = whole(prefix + "moe_ep_size", false);
      return l;
    };
    r.agg = layout("", false);
    r.prefill = layout("prefill_", true);
    r.decode = layout("decode_", true);
    r.ttft_ms = positive("silicon_ttft_ms");
    r.tpot_ms = positive("silicon_tpot_ms");
    // "...; silicon_concurrency=128; ..." inside the provenance text.
    static const std::regex concurrency_re("silicon_concurrency=([0-9]+)");
    std::smatch m;
    const std::string source = text(f, "silicon_data_source");
    if (std::regex_search(source, m, concurrency_re)) r.concurrency = std::stoi(m[1].str());
    if (measured_by_inferencex(source)) {
      // InferenceX's client (benchmarks/benchmark_lib.sh, run_benchmark_serving: its benchmark_serving.py with
      // --dataset-name random --random-range-ratio 0.8 --num-prompts 10 x CONC --max-concurrency CONC
      // --request-rate inf --ignore-eos, no warm-up): lengths uniform in [0.8 x, 1 x] the nominal ones
      // (sample_uniform: randint(int(len x r), len + 1)), every request averaged.
      r.length_range_ratio = 0.8;
      r.requests_per_client = 10;
      r.notes = restore_expert_parallel_layout(r, source);
      set_inferencex_launch_settings(r);
    } else if (measured_by_aiconfigurator(source)) {
      // aiconfigurator's evaluation client (aiconfigurator eval, its default runner genai_perf_runner.py):
      // genai-perf at fixed lengths (stddev 0, min_tokens = max_tokens = osl, ignore_eos), --warmup-request-count
      // 2 x C, then --request-count 10 x C measured: a steady state past the first wave.
      r.warmup_requests_per_client = 2;
      r.requests_per_client = 10;
      set_generator_launch_settings(r);
    }
    if (r.backend != text(f, "backend")) {
      r.notes += (r.notes.empty() ? "" : "; ") + std::string("backend ") + text(f, "backend") + " read as " + r.backend;
    }
    if (bad) return *bad;
    return r;
  }

 private:
  std::string text(const std::vector<std::string>& f, const std::string& column) const {
    const auto it = index_.find(column);
    if (it == index_.end() || it->second >= f.size()) return "";
    return f[it->second];
  }

  std::string file_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

MeasuredServingResults parse_silicon_csv(std::istream& in, const std::string& file, bool strict) {
  MeasuredServingResults out;
  out.file = file;
  std::string line;
  long number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \r") != std::string::npos) header = detail::split_csv(line);
  }
  if (header.empty()) throw InputError(file, "header", "", "the file is empty: a silicon CSV starts with its header");
  const SiliconRowReader reader(header, file);
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \r") == std::string::npos) continue;
    ++out.rows;
    const std::vector<std::string> fields = detail::split_csv(line);
    std::variant<MeasuredServingRun, BadCell> row =
        fields.size() == header.size()
            ? reader.read(fields, number)
            : std::variant<MeasuredServingRun, BadCell>(BadCell{"row", std::to_string(fields.size()) + " fields",
                                                                "the header has " + std::to_string(header.size())});
    if (auto* run = std::get_if<MeasuredServingRun>(&row)) {
      out.runs.push_back(std::move(*run));
      continue;
    }
    const BadCell& b = std::get<BadCell>(row);
    if (strict) throw InputError(file, b.column, b.value, "line " + std::to_string(number) + ": " + b.reason);
    ++out.skipped;
    if (out.first_bad_rows.size() < kBadRowsKept) {
      out.first_bad_rows.push_back({number, b.column + " = " + b.value + ": " + b.reason});
    }
  }
  return out;
}

MeasuredServingResults read_silicon_csv(const std::filesystem::path& path, bool strict) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string(), "", "", "cannot open the file");
  return parse_silicon_csv(in, path.string(), strict);
}

void forget_benchmark_clients(MeasuredServingResults& results) {
  for (MeasuredServingRun& run : results.runs) {
    run.length_range_ratio = 1.0;
    run.warmup_requests_per_client = 0;
    run.requests_per_client = 0;
  }
}

}  // namespace fleetcast::traces
