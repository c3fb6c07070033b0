#pragma once
// What one engine iteration of one replica works on.

#include <vector>

namespace fleetcast::simulator {

struct PrefillChunk {
  int tokens = 0;          // prompt tokens computed in this step
  int context_before = 0;  // tokens of this sequence already in the KV cache
  bool completes_prompt = false;  // the chunk's last token samples the first output token
};

struct BatchShape {
  std::vector<int> decode_contexts;  // one per decoding sequence: tokens in its KV cache before this step
  std::vector<PrefillChunk> prefill;
  // Speculative decoding: draft tokens each decoding sequence verifies in this step, after its last sampled
  // token (0: none). The drafts were proposed by the MTP layers, whose passes this step also costs.
  int draft_tokens = 0;

  int num_decode() const { return static_cast<int>(decode_contexts.size()); }
  // Query tokens the target model runs for the decoding sequences: the last sampled token plus the drafts.
  int decode_tokens() const { return num_decode() * (1 + draft_tokens); }
  int prefill_tokens() const {
    int n = 0;
    for (const auto& c : prefill) n += c.tokens;
    return n;
  }
  int total_tokens() const { return decode_tokens() + prefill_tokens(); }
  bool empty() const { return decode_contexts.empty() && prefill.empty(); }
};

}  // namespace fleetcast::simulator
