// InferenceX's launch scripts' engine settings, rule by rule (inferencex_launch.hpp).
#include "inferencex_launch.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "lower.hpp"

namespace fleetcast::traces::detail {
namespace {

// What the reader assumed about a row, one clause more ("a; b").
void add_note(MeasuredServingRun& r, const std::string& note) { r.notes += (r.notes.empty() ? "" : "; ") + note; }

// Whether the row's system is `gpu` ("h200" for "h200_sxm"), written in any case.
bool on_gpu(const MeasuredServingRun& r, const char* gpu) { return lower(r.system).starts_with(gpu); }

// B200 or B300: InferenceX's B300 scripts mostly reuse B200's recipes.
bool on_blackwell(const MeasuredServingRun& r) { return on_gpu(r, "b200") || on_gpu(r, "b300"); }

// A memory fraction as the launch flag writes it (0.95, 0.835, 0.8).
std::string fraction_text(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", f);
  return buf;
}

// TensorRT-LLM with attention DP: the attention_dp_config block a script appends (enable_balance true, with its
// timeout_iters and batching_wait_iters, TensorRT-LLM's 50 and 10 where it leaves them out). A row without
// attention DP has nothing to balance; it is left alone. Returns the note's clause, "" when not applied.
std::string set_attention_dp_balance(MeasuredServingRun& r, int timeout_iters, int batching_wait_iters) {
  if (r.backend != "trtllm" || r.agg.attention_dp <= 1) return "";
  r.server_adp_balance = true;
  r.server_adp_timeout_iters = timeout_iters;
  r.server_adp_batching_wait_iters = batching_wait_iters;
  return ", attention DP balance (timeout_iters " + std::to_string(timeout_iters) + ", batching_wait_iters " +
         std::to_string(batching_wait_iters) + ")";
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
  int budget = 0, block = 256;
  double memory = 0.0;
  if (pro && on_gpu(r, "h200") && precision == "fp8") {
    budget = 512;
    memory = 0.95;
  } else if (pro && on_gpu(r, "b200") && precision == "fp4") {
    budget = r.isl == 8192 && r.concurrency <= 128 ? 8192 : 2048;
  } else if (pro && on_gpu(r, "b300") && precision == "fp4") {
    budget = r.agg.attention_dp > 1 ? 2048 : 2 * r.isl;
  } else if (flash && on_gpu(r, "b200") && precision == "fp8") {
    budget = 8192;
    memory = 0.95;
  } else if (pro && on_gpu(r, "mi355x") && precision == "fp4") {
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
// MI355X. --max-running-requests 1.5 x the clients (at least 8 on H200 and B300), on B300 with attention DP 768 at
// EP 8 and 2,560, 4,352 and 8,192 at 2,048, 4,096 and 8,192 clients; every B300 branch with attention DP adds
// --enable-prefill-delayer (SGLang's default 30 passes). MI355X's cap and its FP8 script's disabled CUDA graphs are not
// modelled. TensorRT-LLM: no enable_chunked_prefill (prompts whole),
// --max_num_tokens max(ISL + OSL + 256, 8192), tokens_per_block 128, free_gpu_memory_fraction 0.5 (KV from half the
// memory the model leaves).
void set_inferencex_deepseek_v4_pro_settings(MeasuredServingRun& r) {
  const std::string precision = lower(r.precision);
  const bool dp = r.agg.attention_dp > 1;
  std::string note;
  if (r.backend == "sglang") {
    int chunk = 0, page = 0, running = 0;
    double memory = 0.0;
    const int c = r.concurrency;
    if (on_gpu(r, "b200") && precision == "fp4") {
      chunk = dp ? 32768 : 8192;
      memory = 0.90;
      running = c * 3 / 2;
    } else if (on_gpu(r, "b300") && precision == "fp4") {
      const bool huge = dp && (c == 2048 || c == 4096 || c == 8192);
      chunk = huge ? 65536 : dp ? 16384 : 8192;
      memory = !dp ? 0.90 : c == 2048 ? 0.87 : c == 4096 ? 0.835 : c == 8192 ? 0.80 : 0.94;
      running = huge                      ? (c == 2048   ? 2560
                                             : c == 4096 ? 4352
                                                         : 8192)
                : dp && r.agg.moe_ep == 8 ? 768
                                          : std::max(c * 3 / 2, 8);
      r.server_prefill_delayer = dp;
    } else if (on_gpu(r, "h200") && precision == "fp8") {
      chunk = 4096;
      memory = 0.88;
      running = std::max(c * 3 / 2, 8);
    } else if (on_gpu(r, "mi355x") && (precision == "fp4" || precision == "fp8")) {
      chunk = 8192;
      page = 256;
    } else {
      return;
    }
    r.server_chunk_tokens = chunk;
    r.server_kv_block_tokens = page;
    r.server_gpu_memory_utilization = memory;
    r.server_max_running = running;
    note = "SGLang as InferenceX's DeepSeek-V4 scripts start it: --chunked-prefill-size " + std::to_string(chunk);
    if (memory > 0.0) note += " --mem-fraction-static " + fraction_text(memory);
    if (page > 0) note += " --page-size " + std::to_string(page);
    if (running > 0) note += " --max-running-requests " + std::to_string(running);
    if (r.server_prefill_delayer) note += " --enable-prefill-delayer";
  } else if (r.backend == "trtllm" && on_blackwell(r) && precision == "fp4") {
    r.server_whole_prompts = true;
    r.server_max_num_tokens = std::max(r.isl + r.osl + 256, 8192);
    r.server_kv_block_tokens = 128;
    r.server_free_gpu_memory_fraction = 0.5;
    // With attention DP: batching_wait_iters 30 (timeout_iters left at 50) on B200 and in B300's MTP script,
    // batching_wait_iters 0 and timeout_iters 60 in B300's other one (a row says MTP by its acceptance length).
    const bool b300_plain = on_gpu(r, "b300") && r.spec_accept_length <= 0.0;
    note = "TensorRT-LLM as InferenceX's DeepSeek-V4 scripts start it: prompts whole, max_num_tokens " +
           std::to_string(r.server_max_num_tokens) + ", tokens_per_block 128" +
           set_attention_dp_balance(r, b300_plain ? 60 : 50, b300_plain ? 0 : 30) + ", free_gpu_memory_fraction 0.5";
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
  const bool blackwell = on_blackwell(r);
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
  const bool blackwell = on_blackwell(r);
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

// Its MiniMax-M2.5 vLLM scripts (benchmarks/single_node/fixed_seq_len/minimaxm2.5_{fp8,fp4}_*.sh, read at
// SemiAnalysisAI/InferenceX 8eec0d4, the B200 FP4 one also at 45c4f91): on Hopper no --kv-cache-dtype (the KV cache
// stays BF16, twice the bytes per token the FP8 rule gives), --gpu-memory-utilization 0.90 on H100 (with
// --max-num-seqs 256 and --compilation-config cudagraph_mode PIECEWISE) and 0.95 on H200, vLLM's own step budget; on
// B200 and B300 (FP8 and FP4) --kv-cache-dtype fp8, 0.90, --max-num-batched-tokens 2 x ISL and, for FP8,
// --block-size 32. The 4 x H100 rows show the BF16 cache: 64 clients of 8,192 + 1,024 tokens wait 30 s for a first
// token at the TPOT of 32 clients, about the 260k tokens 16.7 GB per GPU hold at 16 bit (525k at 8).
void set_inferencex_minimax_m25_settings(MeasuredServingRun& r) {
  const std::string precision = lower(r.precision);
  std::string note = "vLLM as InferenceX's MiniMax-M2.5 scripts start it:";
  if ((on_gpu(r, "h100") || on_gpu(r, "h200")) && precision == "fp8") {
    r.server_kv_cache = "bf16";
    r.server_gpu_memory_utilization = on_gpu(r, "h100") ? 0.90 : 0.95;
    note += " no --kv-cache-dtype (KV cache BF16)";
    if (on_gpu(r, "h100")) {
      r.server_max_running = 256;  // vLLM's max_num_seqs, per engine (this script runs no DP)
      note += " --max-num-seqs 256";
    }
  } else if (on_blackwell(r) && (precision == "fp8" || precision == "fp4")) {
    r.server_kv_cache = "fp8";
    r.server_gpu_memory_utilization = 0.90;
    r.server_max_num_tokens = 2 * r.isl;
    note += " --kv-cache-dtype fp8 --max-num-batched-tokens " + std::to_string(r.server_max_num_tokens);
    if (precision == "fp8") {
      r.server_kv_block_tokens = 32;
      note += " --block-size 32";
    }
  } else {
    return;  // no script read for it
  }
  add_note(r, note + " --gpu-memory-utilization " + fraction_text(r.server_gpu_memory_utilization));
}

// Its MiniMax-M3 vLLM scripts (benchmarks/single_node/fixed_seq_len/minimaxm3_{fp8,fp4}_*.sh as stored at
// SemiAnalysisAI/InferenceX: fp8 h100 3507da23, h200 2234a2da, b200 6127dd05, b300 8157855f, mi300x 0095dc91, mi325x
// 5ec3e111, mi355x 056a84e1; fp4 b200 0f226da1, b300 023b06ca, mi355x f3547065): --block-size 128 everywhere (the
// sparse attention's block); on NVIDIA GPUs --max-num-batched-tokens 2 x ISL, --gpu-memory-utilization 0.90 (0.95 for
// FP4 on B300) and --kv-cache-dtype fp8 (with the indexer's keys) on B200 and B300 FP8 and B300 FP4, none (BF16) on
// Hopper and B200 FP4; H200 adds --hf-overrides '{"use_index_cache": true, "index_topk_freq": 4}'. On AMD the engine's
// budget and memory defaults, FP8 KV only for MI355X FP8.
void set_inferencex_minimax_m3_settings(MeasuredServingRun& r) {
  const std::string precision = lower(r.precision);
  const bool fp8 = precision == "fp8", fp4 = precision == "fp4";
  const bool nvidia = on_gpu(r, "h100") || on_gpu(r, "h200") || on_blackwell(r);
  const bool amd = on_gpu(r, "mi300x") || on_gpu(r, "mi325x") || on_gpu(r, "mi355x");
  if (!(fp8 || fp4) || !(nvidia || amd) || ((on_gpu(r, "h100") || on_gpu(r, "h200")) && !fp8) ||
      ((on_gpu(r, "mi300x") || on_gpu(r, "mi325x")) && !fp8)) {
    return;  // no script read for it
  }
  const bool fp8_kv = (on_blackwell(r) && (fp8 || on_gpu(r, "b300"))) || (on_gpu(r, "mi355x") && fp8);
  r.server_kv_cache = fp8_kv ? "fp8" : "bf16";
  r.server_kv_block_tokens = 128;
  std::string note =
      "vLLM as InferenceX's MiniMax-M3 scripts start it: --block-size 128 --kv-cache-dtype " + r.server_kv_cache;
  if (nvidia) {
    r.server_gpu_memory_utilization = on_gpu(r, "b300") && fp4 ? 0.95 : 0.90;
    r.server_max_num_tokens = 2 * r.isl;
    note += " --gpu-memory-utilization " + fraction_text(r.server_gpu_memory_utilization) +
            " --max-num-batched-tokens " + std::to_string(r.server_max_num_tokens);
  }
  if (on_gpu(r, "h200")) {
    r.server_index_topk_freq = 4;
    note += " index_topk_freq 4 (one sparse layer in 4 runs the indexer)";
  }
  add_note(r, note);
}

}  // namespace

// Its DeepSeek-R1 scripts for NVIDIA GPUs (dsr1_{fp8,fp4}_{b200,b300}.sh, dsr1_fp8_h200.sh and
// dsr1_{fp8_h200,fp8_b200,fp4_b200}_trt.sh, read at SemiAnalysisAI/InferenceX 8eec0d4; the B300 ones reuse B200's).
// SGLang: on H200 --chunked-prefill-size = --max-prefill-tokens 32768, --mem-fraction-static 0.82, at most 512
// running (256 off 1k/1k), no --kv-cache-dtype (BF16); FP8 on B200/B300 at TP 8 the same budget at 0.82 and 128
// running, at TP 4 8192 at 0.95 and 32 running; FP4 --chunked-prefill-size 16384 at 0.85 and 256 running; on
// Blackwell --scheduler-recv-interval 30 from 16 clients (else 10; always 10 at FP8 TP 4) and an FP8 KV cache.
// TensorRT-LLM: no enable_chunked_prefill, max_num_tokens = clients + ISL + 64 rounded up to 64, at least 8192,
// FP8 KV; FP8 on B200 at 1k/1k from 64 clients waits for batches (batch_wait_timeout_iters 40, ratio 0.8); with
// attention DP every one (MTP variants too) appends attention_dp_config enable_balance with timeout_iters 60 and
// batching_wait_iters 0. free_gpu_memory_fraction 0.8 on Blackwell (0.75 for FP8 at 8,192 x 1,024 on TP 4), 0.75 on
// H200 (dsr1_fp8_h200_trt.sh).
void set_inferencex_deepseek_r1_settings(MeasuredServingRun& r) {
  const std::string precision = lower(r.precision);
  const bool blackwell = on_blackwell(r);
  if (r.backend == "sglang") {
    int budget = 0, chunk = 0, running = 0, recv = 0;
    double memory = 0.0;
    if (on_gpu(r, "h200") && precision == "fp8") {
      budget = chunk = 32768;
      memory = 0.82;
      running = r.isl == 1024 && r.osl == 1024 ? 512 : 256;
      r.server_kv_cache = "bf16";
    } else if (blackwell && precision == "fp8" && (r.agg.tp == 8 || r.agg.tp == 4)) {
      const bool tp8 = r.agg.tp == 8;
      budget = chunk = tp8 ? 32768 : 8192;
      memory = tp8 ? 0.82 : 0.95;
      running = tp8 ? 128 : 32;
      recv = tp8 && r.concurrency >= 16 ? 30 : 10;
      r.server_kv_cache = "fp8";
    } else if (blackwell && precision == "fp4") {
      chunk = 16384;
      memory = 0.85;
      running = 256;
      recv = r.concurrency >= 16 ? 30 : 10;
      r.server_kv_cache = "fp8";
    } else {
      return;
    }
    r.server_max_num_tokens = budget;
    r.server_chunk_tokens = chunk;
    r.server_gpu_memory_utilization = memory;
    r.server_max_running = running;
    r.server_recv_interval = recv;
    std::string note = "SGLang as InferenceX's DeepSeek-R1 scripts start it: --chunked-prefill-size " +
                       std::to_string(chunk) + " --mem-fraction-static " + fraction_text(memory) +
                       " --max-running-requests " + std::to_string(running) + " --kv-cache-dtype " + r.server_kv_cache;
    if (recv > 0) note += " --scheduler-recv-interval " + std::to_string(recv);
    add_note(r, note);
  } else if (r.backend == "trtllm" && (on_gpu(r, "h200") || blackwell) && (precision == "fp8" || precision == "fp4")) {
    r.server_whole_prompts = true;
    r.server_max_num_tokens = std::max((r.concurrency + r.isl + 64 + 63) / 64 * 64, 8192);
    r.server_kv_cache = "fp8";
    r.server_free_gpu_memory_fraction =
        !blackwell || (precision == "fp8" && r.isl == 8192 && r.osl == 1024 && r.agg.tp == 4) ? 0.75 : 0.8;
    std::string note = "TensorRT-LLM as InferenceX's DeepSeek-R1 scripts start it: prompts whole, max_num_tokens " +
                       std::to_string(r.server_max_num_tokens) + ", FP8 KV" + set_attention_dp_balance(r, 60, 0) +
                       ", free_gpu_memory_fraction " + fraction_text(r.server_free_gpu_memory_fraction);
    if (on_gpu(r, "b200") && precision == "fp8" && r.isl == 1024 && r.osl == 1024 && r.concurrency >= 64 &&
        r.agg.attention_dp <= 1) {  // PyExecutor waits for batches only without attention DP
      r.server_batch_wait_iters = 40;
      r.server_batch_wait_tokens_ratio = 0.8;
      note += ", batch_wait_timeout_iters 40, batch_wait_max_tokens_ratio 0.8";
    }
    add_note(r, note);
  }
}

// The engine settings InferenceX's launch scripts give its TensorRT-LLM, SGLang and vLLM servers.
void set_inferencex_launch_settings(MeasuredServingRun& r) {
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
    add_note(r, note);
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
      add_note(r, "SGLang as InferenceX's scripts start it: --scheduler-recv-interval " +
                      std::to_string(r.server_recv_interval));
    }
  }
  if (r.backend == "vllm" && model.find("gpt-oss") != std::string::npos && (on_gpu(r, "h100") || on_gpu(r, "h200"))) {
    // Its gpt-oss vLLM scripts for Hopper (benchmarks/gptoss_fp4_{h100,h200}*.sh) pass no --kv-cache-dtype, where
    // the B200 one sets fp8: the KV cache stays in the model's BF16, not the FP8 a quantized row is given.
    r.server_kv_cache = "bf16";
    add_note(r, "vLLM as InferenceX's gpt-oss Hopper scripts start it: KV cache BF16 (no --kv-cache-dtype)");
  }
  if (r.backend == "trtllm" && r.mode == "agg" && model.find("gpt-oss") != std::string::npos &&
      (on_gpu(r, "b200") || on_gpu(r, "h200"))) {
    // Its gpt-oss TensorRT-LLM scripts (benchmarks/single_node/gptoss_fp4_b200_trt.sh, read at 34bc7c4 and aad5336;
    // gptoss_fp4_h200_trt.sh at 8eec0d4) set kv_cache_config free_gpu_memory_fraction 0.85, and the B200 one appends
    // attention_dp_config with enable_balance alone under attention DP: TensorRT-LLM's 50 and 10. The B200 one sets
    // kv_cache_config dtype fp8; the H200 one (also read at aad5336 and 111f031) leaves it "auto", which takes the
    // checkpoint's KV format, and openai/gpt-oss-120b quantizes its experts alone: the cache stays BF16.
    r.server_free_gpu_memory_fraction = 0.85;
    if (on_gpu(r, "h200")) r.server_kv_cache = "bf16";
    add_note(
        r, "TensorRT-LLM as InferenceX's gpt-oss scripts start it: free_gpu_memory_fraction 0.85" +
               (on_gpu(r, "b200") ? set_attention_dp_balance(r, 50, 10) : std::string(", KV cache BF16 (dtype auto)")));
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
  if (r.backend == "vllm" && r.mode == "agg" && model.find("minimax-m2.5") != std::string::npos) {
    set_inferencex_minimax_m25_settings(r);
  }
  if (r.backend == "vllm" && r.mode == "agg" && model.find("minimax-m3") != std::string::npos) {
    set_inferencex_minimax_m3_settings(r);
  }
  if (r.mode == "agg" && model.find("deepseek-r1") != std::string::npos && (on_gpu(r, "h200") || on_blackwell(r))) {
    set_inferencex_deepseek_r1_settings(r);
  }
  if (r.backend == "sglang" && r.mode == "agg" && model.find("deepseek-r1") != std::string::npos) {
    // Its DeepSeek-R1 SGLang scripts for AMD's GPUs (benchmarks/single_node/fixed_seq_len/dsr1_{fp8,fp4}_mi3*.sh,
    // after AMD's ROCm SGLang recipe) raise --chunked-prefill-size and --max-prefill-tokens together: 131072 on
    // MI300X and MI325X (FP8), 196608 on MI355X, but 32768 for MI355X FP4 at 8,192 x 1,024 above 32 clients. So a
    // prefill batch takes many whole prompts where SGLang's default (16384) takes two of 8,192 tokens. The scripts'
    // --num-continuous-decode-steps (4, 8 on MI355X FP8) changes nothing: SGLang still declares it but has read it
    // nowhere since its overlap scheduler replaced the multi-step decode loop (#2095, 2024-11). As read at InferenceX
    // 8eec0d4 (0762e65 for MI325X); the scripts change over time and a row does not say which one ran it.
    const std::string precision = lower(r.precision);
    const bool mi300 = on_gpu(r, "mi300x") || on_gpu(r, "mi325x");
    const bool mi355 = on_gpu(r, "mi355x");
    int size = 0;
    if (mi300 && precision == "fp8") size = 131072;
    if (mi355 && (precision == "fp8" || precision == "fp4")) size = 196608;
    if (mi355 && precision == "fp4" && r.isl == 8192 && r.osl == 1024 && r.concurrency > 32) size = 32768;
    if (size > 0) {
      r.server_max_num_tokens = size;
      r.server_chunk_tokens = size;
      add_note(r,
               "SGLang as InferenceX's DeepSeek-R1 scripts start it on AMD: --chunked-prefill-size and "
               "--max-prefill-tokens " +
                   std::to_string(size) + " (--num-continuous-decode-steps: read nowhere in SGLang since #2095)");
    }
  }
}

}  // namespace fleetcast::traces::detail
