#pragma once
// Continuous batching as vLLM v1 schedules it: each step first serves the running requests in admission
// order (one token for a decode, a chunk for an unfinished prompt) and then admits waiting requests first
// come first served, within a token budget and a sequence cap, with paged KV admission control. When a
// running request cannot get KV blocks, the latest admitted one is preempted by recompute.
// With speculative decoding a decode verifies its last token plus n drafts (1 + n tokens of budget and KV)
// and keeps 1 + the drafts accepted, drawn per sequence per step.
// Pure bookkeeping, no SimGrid: a replica actor drives it.

#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "fleetcast/simulator/batch.hpp"
#include "fleetcast/simulator/request.hpp"
#include "fleetcast/simulator/speculative.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

// KV bytes one sequence of n tokens holds on one GPU, and how many bytes a GPU has for them.
struct KvBudget {
  double capacity_bytes = 0.0;
  std::function<double(double tokens)> bytes_for_tokens;
};

struct StepOutcome {
  std::vector<Request*> finished;
  std::vector<Request*> first_token;  // requests whose first token came in this step
  std::vector<std::pair<Request*, int>> tokens_by_request;  // every request that produced tokens, and how many
  // One gap per request that produced tokens after its first: the tokens of one step (several when drafts
  // were accepted) stream as one chunk, and `vllm bench serve` measures ITL per chunk.
  std::vector<double> token_gaps_s;
  int first_tokens = 0;
  int first_token_input_tokens = 0;  // input tokens of the requests whose first token came in this step
  int output_tokens = 0;             // tokens produced, first tokens included
  int prefill_tokens = 0;
  int decode_tokens = 0;             // tokens the decodes ran through the model (drafts included)
  int decode_sequences = 0;          // decoding sequences of the step
  int decode_output_tokens = 0;      // tokens they produced: 1 + accepted drafts each, capped at the output
};

class Batcher {
public:
  // `drafts`: speculative decoding's acceptance draws; none: one token per decode.
  Batcher(const specs::SchedulerSpec& spec, KvBudget kv, std::optional<DraftAcceptance> drafts = std::nullopt);

  // Queues a request; one that could never fit the KV cache (or the token budget without chunked
  // prefill) is marked failed and returned as false.
  bool add(Request* r);
  // Disaggregated decode: a request whose prompt KV and first token came from a prefill replica (kv_tokens =
  // the prompt, generated = 1). It is admitted straight into the running batch with its prompt's blocks
  // reserved now, as vLLM's decode instance allocates blocks for the remote KV before decoding (v0.11
  // vllm/v1/core/sched/scheduler.py, WAITING_FOR_REMOTE_KVS); it decodes from the next step.
  enum class Prefilled { admitted, no_room, never_fits };
  Prefilled add_prefilled(Request* r);
  bool has_work() const { return !waiting_.empty() || !running_.empty(); }
  const BatchShape& schedule(double now);
  StepOutcome complete(double now);

  std::size_t waiting() const { return waiting_.size(); }
  std::size_t running() const { return running_.size(); }
  double kv_used_bytes() const { return kv_used_bytes_; }
  // KV the waiting requests' prompts will take once admitted: what a replica has committed to beyond what it
  // holds (a router balancing KV counts both).
  double kv_waiting_bytes() const { return kv_waiting_bytes_; }
  double kv_capacity_bytes() const { return kv_.capacity_bytes; }
  long long preemptions() const { return preemptions_; }

private:
  struct Item {
    Request* req;
    int tokens;
    bool decode;
  };
  bool reserve(Request* r, int new_kv_tokens);  // grows r's blocks to hold new_kv_tokens, if memory allows
  void release(Request* r);
  void preempt(Request* r);
  void enqueue(Request* r, bool front);
  double prompt_bytes(const Request* r) const {
    return kv_.bytes_for_tokens(blocks_for(r->prompt_target) * block_tokens_);
  }
  int blocks_for(int tokens) const { return (tokens + block_tokens_ - 1) / block_tokens_; }

  specs::SchedulerSpec spec_;
  KvBudget kv_;
  std::optional<DraftAcceptance> drafts_;
  int draft_tokens_;  // per decode per step, 0 without speculation
  int block_tokens_;
  std::deque<Request*> waiting_;
  std::vector<Request*> running_;  // admission order
  std::vector<Item> items_;
  BatchShape batch_;
  double kv_used_bytes_ = 0.0;
  double kv_waiting_bytes_ = 0.0;
  long long preemptions_ = 0;
};

}  // namespace fleetcast::simulator
