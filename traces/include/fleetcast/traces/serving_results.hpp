#pragma once
// Measured serving results: benchmark points people ran on real engines, each a closed-loop run at fixed
// lengths on one layout with its measured mean TTFT and TPOT. Readers for the silicon CSV of
// ai-dynamo/aiconfigurator (../shared/validation/silicon-dev.csv); the validator maps each point to a
// scenario (simulator/validation/).

#include <filesystem>
#include <string>
#include <vector>

#include "fleetcast/traces/request_trace.hpp"

namespace fleetcast::traces {

// One pool's layout as the file gives it; 0 where the column was blank.
struct MeasuredLayout {
  int batch_size = 0;   // running requests per attention-DP rank
  int num_workers = 0;  // disaggregated pools only
  int tp = 0;
  int pp = 0;
  int attention_dp = 0;
  int moe_tp = 0;
  int moe_ep = 0;
  bool operator==(const MeasuredLayout&) const = default;
};

// A percentile of a per-request latency the benchmark client reported beside its mean: vLLM's median_ and pNN_
// (--metric-percentiles, 99 by default), SGLang's median_, p90_ and p99_ keys.
struct MeasuredPercentile {
  std::string metric;  // "ttft", "tpot", "e2e": the simulation report's ttft_ms, tpot_ms, e2e_latency_ms
  int percentile = 0;  // 50, 90, 95 or 99
  double ms = 0.0;
  bool operator==(const MeasuredPercentile&) const = default;
};

struct MeasuredServingRun {
  long line = 0;        // 1-based line in the file
  std::string id;       // the row's id column
  std::string backend;  // "vllm", "sglang", "trtllm"
  std::string backend_version;
  std::string model_path;       // Hugging Face id: "Qwen/Qwen3-32B"
  std::string system;           // "h100_sxm", "gb200", ...
  std::string precision;        // "fp8", "fp4", "bf16" or ""
  std::string gemm_quant_mode;  // "fp8", "fp8_block", "nvfp4" or ""
  std::string moe_quant_mode;
  std::string mode;     // "agg" or "disagg"
  int isl = 0;          // input tokens per request
  int osl = 0;          // output tokens per request
  int concurrency = 0;  // closed-loop clients (silicon_concurrency=N in silicon_data_source); 0: not given
  // Open-loop runs (benchmark clients that send at a rate: vllm bench serve --request-rate R): requests per
  // second and the gamma shape of the gaps (vLLM's --burstiness: 1 is Poisson); 0: closed loop.
  double request_rate_per_s = 0.0;
  double burstiness = 1.0;
  long num_requests = 0;        // requests the benchmark sent, all measured; 0: not given (a CSV row)
  long output_tokens = 0;       // the benchmark's output tokens over them all; 0: not given (a CSV row)
  long warmup_requests = 0;     // of num_requests, sent first and left out of the means (genai-perf's, AIPerf's)
  std::vector<int> input_lens;  // per-request lengths when the file lists them (else isl and osl for all)
  std::vector<int> output_lens;
  // The spread of lengths the benchmark client drew, where the row's provenance names a client that draws one
  // (--random-range-ratio r of InferenceX's benchmark_serving.py): each request's input uniform in
  // [floor(r x isl), isl] and its output in [floor(r x osl), osl]. 1: every request isl and osl.
  double length_range_ratio = 1.0;
  // Where the provenance names the client: requests per client it sent first and left out of its means (warm-up),
  // then requests per client it averaged over. 0 and 0: not given.
  int warmup_requests_per_client = 0;
  int requests_per_client = 0;
  // Where the provenance names the tool that launched the server, the step settings it gave the engine: the step
  // token budget (TensorRT-LLM's max_num_tokens, SGLang's max_prefill_tokens) and whether a prompt is prefilled
  // whole (TensorRT-LLM without enable_chunked_prefill). 0 and false: the engine's defaults.
  int server_max_num_tokens = 0;
  bool server_whole_prompts = false;
  bool server_mixed_chunk = false;             // SGLang's --enable-mixed-chunk
  int server_recv_interval = 0;                // SGLang's --scheduler-recv-interval; 0: its default (1)
  int server_chunk_tokens = 0;                 // SGLang's --chunked-prefill-size; 0: its default for the GPU
  int server_cuda_graph_max_bs = 0;            // SGLang's largest --cuda-graph-bs; 0: its default for the GPU
  double server_gpu_memory_utilization = 0.0;  // vLLM's --gpu-memory-utilization; 0: the deployment's default
  int server_kv_block_tokens = 0;              // vLLM's --block-size; 0: the deployment's default
  std::string server_kv_cache;  // the KV cache's format as the server was started ("bf16", "fp8"); "": inferred
  // a cap on running requests below the clients (--max-running-requests, for the whole server; SGLang divides it
  // among attention-DP ranks); 0: none
  int server_max_running = 0;
  // vLLM's MiniMax-M3 index_topk_freq (--hf-overrides): one sparse layer in this many runs the indexer, the others
  // reuse the top-k before them. 0: every sparse layer runs it.
  int server_index_topk_freq = 0;
  // TensorRT-LLM's batch_wait_timeout_iters and batch_wait_max_tokens_ratio; 0 and 0: no batch waiting
  int server_batch_wait_iters = 0;
  double server_batch_wait_tokens_ratio = 0.0;
  // TensorRT-LLM's attention_dp_config (enable_balance, timeout_iters, batching_wait_iters) with attention DP;
  // false: no balance. The iteration counts are TensorRT-LLM's defaults unless the launcher set them.
  bool server_adp_balance = false;
  int server_adp_timeout_iters = 50;
  int server_adp_batching_wait_iters = 10;
  // TensorRT-LLM's kv_cache_config.free_gpu_memory_fraction as the launcher set it; 0: TensorRT-LLM's default (0.9)
  double server_free_gpu_memory_fraction = 0.0;
  // SGLang's --enable-prefill-delayer (with attention DP) and its --prefill-delayer-max-delay-passes
  bool server_prefill_delayer = false;
  int server_prefill_delayer_max_delay_passes = 30;
  // Speculative decoding as the server ran it. The method, from the launch: "mtp" (drafts from the model's own MTP
  // layers), else the engine's name of another (not modelled); "": not said. Drafts proposed per step, from the launch
  // or vLLM's counts; 0: not said. What the run measured: the mean accepted length per step (the verified token plus
  // the accepted drafts; SGLang's accept_length, vLLM's spec_decode_acceptance_length; 0: none) and, where vLLM reports
  // it, the share of steps that accepted each draft position (position i accepted means 1..i-1 were too).
  std::string spec_method;
  int spec_draft_tokens = 0;
  double spec_accept_length = 0.0;
  std::vector<double> spec_position_acceptance;
  std::string notes;                            // what the reader assumed that the file did not say
  MeasuredLayout agg;                           // mode agg
  MeasuredLayout prefill;                       // mode disagg
  MeasuredLayout decode;                        // mode disagg
  double ttft_ms = 0.0;                         // measured mean time to first token
  double tpot_ms = 0.0;                         // measured mean time per output token after the first
  std::vector<MeasuredPercentile> percentiles;  // what a benchmark file reports of the distributions; none in a CSV
  bool operator==(const MeasuredServingRun&) const = default;
};

struct MeasuredServingResults {
  std::string file;
  long rows = 0;                       // data rows read, good and bad
  long skipped = 0;                    // bad rows
  std::vector<BadRow> first_bad_rows;  // at most kBadRowsKept
  std::vector<MeasuredServingRun> runs;
};

// The silicon CSV: a header row naming at least id, backend, model_path, system, mode, isl, osl and
// silicon_ttft_ms / silicon_tpot_ms (a missing one is an InputError naming it). A row without an id, lengths
// or positive measured TTFT and TPOT, or with a layout cell that is not a whole number, is bad: skipped and
// counted (its line kept among the first few), or under `strict` an InputError naming line, column and value.
MeasuredServingResults read_silicon_csv(const std::filesystem::path& path, bool strict = false);
MeasuredServingResults parse_silicon_csv(std::istream& in, const std::string& file, bool strict = false);

// How much of each CSV row's benchmark client, as the reader inferred it from the row's provenance, the mapping
// keeps (docs/ACCURACY.md, "Benchmark clients" and "InferenceX's drawn lengths alone").
enum class CsvClientMapping {
  // --fixed-lengths: every row a fixed-length closed loop over the default window (the default until session 47,
  // under which the fits of pairs without InferenceX rows were made).
  fixed_lengths,
  // The default of `validate --silicon` and `calibrate serving` (--drawn-lengths), which the shipped fits of pairs
  // with InferenceX rows were made under: a client that draws each request's lengths (InferenceX's, 0.8-1 x the
  // nominal ones) keeps them and its request count, since fixed lengths put its clients in a lockstep the real ones
  // were never in; a fixed-length client (aiconfigurator's genai-perf) maps as with --fixed-lengths, its warm-up
  // dropped.
  drawn_lengths,
  // --benchmark-clients: every client as its provenance names it, the genai-perf warm-up of 2 x C requests too.
  as_run,
};

// The shortest length a client with `length_range_ratio` r draws about `nominal` tokens: floor(r x nominal), at least
// 1 (each request's length uniform in [that, nominal]).
int shortest_drawn_length(int nominal, double length_range_ratio);

// Applies `mapping` to rows read from a silicon CSV: forget_benchmark_clients for fixed_lengths; for drawn_lengths
// the same for the rows whose client sends fixed lengths only; nothing for as_run.
void apply_client_mapping(MeasuredServingResults& results, CsvClientMapping mapping);

// Drops what the reader inferred from each row's provenance about its benchmark client (lengths drawn in a range,
// warm-up and measured request counts): every CSV row maps as a fixed-length closed loop over the default window.
void forget_benchmark_clients(MeasuredServingResults& results);

}  // namespace fleetcast::traces
