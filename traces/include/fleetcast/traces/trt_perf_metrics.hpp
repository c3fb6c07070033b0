#pragma once
// TensorRT-LLM's per-request timing. With `return_perf_metrics: true` in the options file, trtllm-serve keeps every
// finished request's iterations and times, and GET /perf_metrics returns them as a JSON list (serve/openai_server.py,
// get_perf_metrics): {"request_id", "perf_metrics": {"first_iter", "last_iter", "timing_metrics":
// {"server_arrival_time", "arrival_time", "first_scheduled_time", "first_token_time", "server_first_token_time",
// "last_token_time"} in seconds of one steady clock, "kv_cache_metrics": {...}, ...}}. It says what a benchmark client
// cannot: how long the engine's own parts of a TTFT took, and how many tokens each decode iteration gave (with
// speculative decoding, the acceptance the run really had).

#include <filesystem>
#include <string>
#include <vector>

#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::traces {

struct RequestTiming {
  long request_id = 0;
  long first_iter = 0;  // the iteration that computed the prompt's last chunk and the first token
  long last_iter = 0;   // the iteration that gave the last token
  // Seconds of the server's steady clock. The HTTP server's own two (arrival, first token sent) are null where the
  // request did not come through it: NaN here.
  double server_arrival_s = 0.0;
  double arrival_s = 0.0;  // reached the executor (tokenized)
  double first_scheduled_s = 0.0;
  double first_token_s = 0.0;
  double server_first_token_s = 0.0;
  double last_token_s = 0.0;
};

// Every entry, in the file's order. InputError naming the file, the entry (0-based) and the field: a missing or
// non-numeric field, last_iter < first_iter, or times out of their order (arrival, first scheduled, first token, last
// token).
std::vector<RequestTiming> read_trt_perf_metrics(const std::filesystem::path& path);
std::vector<RequestTiming> parse_trt_perf_metrics(const std::string& text, const std::string& file);

// What the entries say about one benchmark run of `measured` requests that gave `output_tokens` tokens in all: the
// last `measured` entries by request id are its requests (a client's warm-up requests come first, and TensorRT-LLM
// numbers requests as they arrive). Medians over those requests, in ms; NaN where a time is missing.
struct EngineTiming {
  long requests = 0;
  long warmups_left_out = 0;
  long decode_iterations = 0;         // sum of last_iter - first_iter
  double tokens_per_iteration = 0.0;  // (output_tokens - requests) / decode_iterations: each active request takes
                                      // part in every iteration after its first (no preemption)
  double front_end_ms = 0.0;          // arrival - server_arrival: HTTP, chat template, tokenizer
  double wait_ms = 0.0;               // first_scheduled - arrival
  double context_ms = 0.0;            // first_token - first_scheduled: the prompt's iteration(s)
  double response_ms = 0.0;           // server_first_token - first_token: detokenize and send
  double decode_iteration_ms = 0.0;   // (last_token - first_token) / (last_iter - first_iter)
};
// InputError (file, "--perf-metrics") when the file holds fewer entries than `measured` (trtllm-serve keeps at most
// perf_metrics_max_requests) or none gave a decode iteration.
EngineTiming summarize_engine_timing(std::vector<RequestTiming> entries, long measured, long output_tokens,
                                     const std::string& file);

// Puts the timing on the run: its tokens per iteration as the speculative run's accepted length where the run drafts
// and its benchmark file reports none (the file's own figure is kept, the other noted), and a note with the breakdown.
void apply_engine_timing(const EngineTiming& t, MeasuredServingRun& run);

}  // namespace fleetcast::traces
