#pragma once
// One request's lengths, timestamps and progress. The simulation owns all of them in one vector;
// actors pass pointers in their messages.

#include <cstdint>
#include <vector>

namespace fleetcast::simulator {

struct Request {
  std::int64_t id = 0;
  int input_tokens = 0;
  int output_tokens = 0;
  int class_index = 0;      // its class in the workload
  int client = -1;          // closed loop: the client that sent it (numbered across all closed-loop classes)
  double arrival_s = -1.0;  // open loop: drawn up front; closed loop: set when the client sends it
  std::int64_t arrival_rank = -1;  // order of arrival at the router (decides warm-up and cool-down)
  // One id per full prefix block of the prompt (the workload's prefix_block_tokens each), in order. Ids are
  // chained as Mooncake traces' hash_ids are: the same id means the same tokens after the same preceding blocks.
  std::vector<std::uint64_t> prefix_blocks;

  // Progress inside a replica.
  int replica = -1;
  int prompt_target = 0;  // tokens to prefill: the input, or after a preemption by recompute input + output so far
  int generated = 0;      // output tokens produced
  int kv_tokens = 0;      // tokens whose KV is computed (the prefilled part of the prompt, then one per decode)
  int kv_blocks = 0;      // KV blocks held
  int preemptions = 0;
  int prefix_blocks_held = 0;  // its leading prefix blocks it references in the replica's prefix cache
  int prefix_hit_tokens = 0;   // prompt tokens found in the prefix cache when first admitted (not computed)
  // How its preemptions went: KV dropped and recomputed, or moved to host memory and back (bytes per GPU).
  int recomputes = 0;
  int swaps_out = 0;
  int swaps_in = 0;
  double swapped_out_bytes = 0.0;
  double swapped_kv_bytes = 0.0;  // in host memory now (0: none)
  bool failed = false;  // could never be served (longer than the replica's whole KV cache)

  // Prefill/decode disaggregation: the decode replica that continues it and its prompt's KV transfer.
  int decode_replica = -1;
  double kv_transfer_bytes = 0.0;  // per GPU of the prefill replica: the tp shards move in parallel
  double kv_sent_s = -1.0;
  double kv_arrived_s = -1.0;

  double scheduled_s = -1.0;    // first time a step included it (end of queueing)
  double first_token_s = -1.0;
  double last_token_s = -1.0;
  double finish_s = -1.0;

  bool prefill_done() const { return kv_tokens >= prompt_target; }
};

}  // namespace fleetcast::simulator
