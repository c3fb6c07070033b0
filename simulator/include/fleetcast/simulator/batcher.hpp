#pragma once
// Continuous batching as vLLM v1 schedules it: each step first serves the running requests in admission
// order (one token for a decode, a chunk for an unfinished prompt) and then admits waiting requests first
// come first served, within a token budget and a sequence cap, with paged KV admission control. When a
// running request cannot get KV blocks, the latest admitted one is preempted by recompute.
// SchedulerSpec::policy picks another engine's way of forming a step (schedule_sglang.cpp,
// schedule_trtllm.cpp, schedule_atom.cpp); the KV bookkeeping, preemption and completion are shared. With preemption by
// swap a victim's KV moves to host memory and back (batcher_swap.cpp): step_swap_bytes() tells the replica what the
// step moved over the host link.
// With speculative decoding a decode verifies its last token plus n drafts (1 + n tokens of budget and KV)
// and keeps 1 + the drafts accepted, drawn per sequence per step.
// With prefix caching (vLLM v1's automatic prefix caching, prefix_cache.hpp) a request admitted from the queue
// starts with the longest run of its leading prefix blocks found cached, short of its last prompt token (vLLM
// always computes that one), and prefills only the rest; each prefix block it computes joins the cache.
// Memory: the replica's KV budget holds the requests' own KV, the cached blocks they reference (once, however
// many share them) and the cached blocks no one references. The last are free memory, evicted least recently
// freed first when a request needs room. A request's KV is counted as a whole sequence of kv_blocks KV blocks
// (kv_block_tokens each); its first prefix_blocks_held prefix blocks (prefix_block_tokens each, a multiple of
// kv_block_tokens) are the cache's, so its own share is bytes_for_tokens(its KV tokens) minus
// bytes_for_tokens(held x prefix_block_tokens), and cached block i weighs bytes_for_tokens((i + 1) x prefix)
// - bytes_for_tokens(i x prefix): the sums agree however a sequence is split.
// Pure bookkeeping, no SimGrid: a replica actor drives it.

#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "fleetcast/simulator/batch.hpp"
#include "fleetcast/simulator/prefix_cache.hpp"
#include "fleetcast/simulator/request.hpp"
#include "fleetcast/simulator/speculative.hpp"
#include "fleetcast/specs/deployment.hpp"
#include "fleetcast/specs/workload.hpp"

namespace fleetcast::simulator {

// KV bytes one sequence of n tokens holds on one GPU, and how many bytes a GPU has for them.
struct KvBudget {
  double capacity_bytes = 0.0;
  std::function<double(double tokens)> bytes_for_tokens;
};

struct StepOutcome {
  std::vector<Request*> finished;
  std::vector<Request*> first_token;                        // requests whose first token came in this step
  std::vector<std::pair<Request*, int>> tokens_by_request;  // every request that produced tokens, and how many
  // One gap per request that produced tokens after its first: the tokens of one step (several when drafts
  // were accepted) stream as one chunk, and `vllm bench serve` measures ITL per chunk.
  std::vector<double> token_gaps_s;
  int first_tokens = 0;
  int first_token_input_tokens = 0;  // input tokens of the requests whose first token came in this step
  int output_tokens = 0;             // tokens produced, first tokens included
  int prefill_tokens = 0;
  int decode_tokens = 0;         // tokens the decodes ran through the model (drafts included)
  int decode_sequences = 0;      // decoding sequences of the step
  int decode_output_tokens = 0;  // tokens they produced: 1 + accepted drafts each, capped at the output
};

class Batcher {
 public:
  // `drafts`: speculative decoding's acceptance draws; none: one token per decode. `prefix_block_tokens`: the
  // size of the blocks of Request::prefix_blocks, a multiple of spec.kv_block_tokens when spec.prefix_caching.
  Batcher(const specs::SchedulerSpec& spec, KvBudget kv, std::optional<DraftAcceptance> drafts = std::nullopt,
          int prefix_block_tokens = specs::kDefaultPrefixBlockTokens);

  // Queues a request; one that could never fit the KV cache (or the token budget without chunked
  // prefill) is marked failed and returned as false.
  bool add(Request* r);
  // Disaggregated decode: a request whose prompt KV and first token came from a prefill replica (kv_tokens =
  // the prompt, generated = 1). It is admitted straight into the running batch with its prompt's blocks
  // reserved now, as vLLM's decode instance allocates blocks for the remote KV before decoding (v0.11
  // vllm/v1/core/sched/scheduler.py, WAITING_FOR_REMOTE_KVS); it decodes from the next step.
  enum class Prefilled { admitted, no_room, never_fits };
  Prefilled add_prefilled(Request* r);
  bool has_work() const {
    return !waiting_.empty() || !running_.empty() || !swapped_.empty() || !sglang_inbox_.empty();
  }
  const BatchShape& schedule(double now);
  StepOutcome complete(double now);
  // The step schedule() formed: its decodes, and its context chunks (prompts started now or before).
  int step_decodes() const;
  int step_contexts() const { return static_cast<int>(items_.size()) - step_decodes(); }
  // Takes the context chunks out of the step schedule() formed (TensorRT-LLM's attention-DP balance holding them,
  // attention_dp_balance.hpp): they keep their place and their blocks and are scheduled again next step.
  const BatchShape& hold_contexts();
  // SGLang's prefill delayer (prefill_delayer.hpp) asks each DP rank, before the ranks form their steps, whether
  // it would start a new request now: no prompt is being chunked, a slot is free and the head of the queue passes
  // the KV-budget check of a prefill batch (SGLang negotiates after those checks since #31835). It takes in the
  // requests sent so far first, as the step would (recv_interval).
  bool sglang_prefillable();
  // The next schedule() starts no new request: a chunked prompt still continues, else the running requests decode
  // (SGLang's prefill batch comes back empty and its decode batch runs).
  void sglang_delay_admissions() { sglang_admissions_delayed_ = true; }
  int max_num_seqs() const { return spec_.max_num_seqs; }

  // Bytes per GPU the step schedule() formed moves over the host link: its victims' KV swapped out and the
  // KV of the requests it resumed swapped in.
  double step_swap_bytes() const { return step_swap_bytes_; }
  double swap_used_bytes() const { return swap_used_bytes_; }  // host memory holding swapped-out KV, per GPU

  std::size_t waiting() const { return waiting_.size() + swapped_.size() + sglang_inbox_.size(); }
  // The prompt tokens of every request it holds, waiting or running: what TensorRT-LLM's attention-DP router
  // balances.
  long long active_prompt_tokens() const;
  std::size_t running() const { return running_.size(); }
  double kv_used_bytes() const { return kv_used_bytes_; }
  // KV the waiting requests' prompts will take once admitted: what a replica has committed to beyond what it
  // holds (a router balancing KV counts both).
  double kv_waiting_bytes() const { return kv_waiting_bytes_ + swap_used_bytes_; }
  double kv_capacity_bytes() const { return kv_.capacity_bytes; }
  long long preemptions() const { return preemptions_; }
  // The prefix cache; null when prefix caching is off.
  const PrefixCache* prefix_cache() const { return prefix_cache_ ? &*prefix_cache_ : nullptr; }

 private:
  struct Item {
    Request* req;
    int tokens;
    bool decode;
  };
  bool reserve(Request* r, int new_kv_tokens);  // grows r's blocks to hold new_kv_tokens, if memory allows
  void release(Request* r);
  // Prefix caching (batcher_prefix.cpp); each does nothing when it is off.
  int prefix_hit_blocks(const Request* r) const;              // cached leading blocks an admission would use
  bool admit(Request* r, int hit_blocks, int new_kv_tokens);  // pins the hit blocks and reserves the rest
  void make_room(double grow_bytes);                          // evicts unreferenced cached blocks for grow_bytes
  void cache_computed_blocks(Request* r);                     // its newly computed full prefix blocks join the cache
  double release_prefix(Request* r);                          // unpins its blocks; returns the bytes they weigh
  double prefix_bytes(int blocks) const { return blocks > 0 ? kv_.bytes_for_tokens(blocks * prefix_tokens_) : 0.0; }
  // Takes r out of the running batch: swapped out when the mode and the swap space allow, else its KV is
  // dropped and it waits to prefill again, first in line or (SGLang) last.
  void preempt(Request* r, bool requeue_front = true);
  void enqueue(Request* r, bool front);
  bool swap_out(Request* r);
  // Swapped requests come back first come first served, before any new prompt, while KV, the budget and
  // max_num_seqs allow and no request was preempted in this step (vLLM v0.6 vllm/core/scheduler.py
  // _schedule_swapped). Each resumed request's KV moves back to the GPU.
  void resume_swapped(int& budget, long long preemptions_before);
  // The steps of the other engines (SchedulerSpec::policy); the vLLM step is schedule() itself.
  void schedule_sglang(double now);
  void schedule_trtllm(double now);
  void schedule_atom(double now);
  bool sglang_prefill(double now);  // forms a prefill step if one is due; false: a decode step follows
  void sglang_decode();
  void start_running(Request* r, double now);  // the first waiting request joins the running batch
  double kv_bytes(int tokens) const {
    return tokens > 0 ? kv_.bytes_for_tokens(blocks_for(tokens) * block_tokens_) : 0.0;
  }
  const BatchShape& shape_batch();  // items_ -> batch_
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
  std::optional<PrefixCache> prefix_cache_;
  int prefix_tokens_;

  std::deque<Request*> swapped_;  // preempted by swap: KV in host memory, resumed before new prompts
  double swap_used_bytes_ = 0.0;
  double step_swap_bytes_ = 0.0;

  // SGLang: the one request whose prompt is being prefilled in chunks, and the share of its remaining output
  // the admission reserves for each running request (schedule_sglang.cpp).
  static constexpr double kSglangInitNewTokenRatio = 0.7;
  Request* sglang_chunked_ = nullptr;
  double new_token_ratio_ = kSglangInitNewTokenRatio;
  // SGLang with recv_interval > 1: requests sent but not yet received by the scheduler, the decode steps counted
  // since it last received, and whether the last step was decode only.
  std::deque<Request*> sglang_inbox_;
  int sglang_recv_counter_ = 0;
  bool sglang_last_decode_ = false;
  void sglang_receive();
  // Takes in sent requests and resets the admission ratio of an idle engine, once per step: the prefill delayer's
  // question may come before schedule().
  bool sglang_step_begun_ = false;
  bool sglang_admissions_delayed_ = false;
  void sglang_begin_step();
  double sglang_rem_total() const;  // KV left once each running request keeps room for its share of output

  // TensorRT-LLM with batch waiting: the steps its new contexts have waited so far (schedule_trtllm.cpp).
  int trtllm_batch_wait_count_ = 0;
  void trtllm_batch_wait();
  void drop_contexts();  // the step's context chunks out of items_ (they keep their place and blocks)
};

}  // namespace fleetcast::simulator
