// The Batcher's prefix caching (batcher.hpp says how its memory is counted), after vLLM v0.11
// vllm/v1/core/kv_cache_manager.py: get_computed_blocks at admission, allocate_slots admitting only when the
// free pool minus the hit blocks it would take out holds the rest, cache_full_blocks as blocks fill, and free
// in reverse order.
#include <algorithm>
#include <span>

#include "fleetcast/simulator/batcher.hpp"

namespace fleetcast::simulator {

int Batcher::prefix_hit_blocks(const Request* r) const {
  if (!prefix_cache_ || r->prefix_blocks.empty()) return 0;
  // At least the last prompt token is computed, since its logits give the first output token: a fully cached
  // prompt recomputes its last block.
  const int usable = std::min(static_cast<int>(r->prefix_blocks.size()), (r->prompt_target - 1) / prefix_tokens_);
  return prefix_cache_->match(std::span(r->prefix_blocks).first(static_cast<std::size_t>(std::max(0, usable))));
}

bool Batcher::admit(Request* r, int hit_blocks, int new_kv_tokens) {
  if (r->scheduled_s < 0.0) r->prefix_hit_tokens = hit_blocks * prefix_tokens_;  // counted at first admission
  if (hit_blocks == 0) return reserve(r, new_kv_tokens);
  const auto hit = std::span(r->prefix_blocks).first(static_cast<std::size_t>(hit_blocks));
  // Hit blocks nobody references leave the free pool when pinned: they must fit with the request's own KV.
  const double shared = prefix_bytes(hit_blocks);
  const double own = kv_.bytes_for_tokens(blocks_for(new_kv_tokens) * block_tokens_) - shared;
  if (kv_used_bytes_ + prefix_cache_->unreferenced_bytes(hit) + own > kv_.capacity_bytes) return false;
  kv_used_bytes_ += prefix_cache_->pin(hit);
  r->prefix_blocks_held = hit_blocks;
  r->kv_tokens = hit_blocks * prefix_tokens_;
  r->kv_blocks = r->kv_tokens / block_tokens_;  // whole KV blocks: prefix blocks are a multiple of them
  return reserve(r, new_kv_tokens);             // fits: checked above
}

void Batcher::make_room(double grow_bytes) {
  if (!prefix_cache_) return;
  const double over = kv_used_bytes_ + prefix_cache_->unreferenced_bytes() + grow_bytes - kv_.capacity_bytes;
  if (over > 1e-6) prefix_cache_->evict(over);  // a rounding residue is no reason to evict a block
}

void Batcher::cache_computed_blocks(Request* r) {
  if (!prefix_cache_) return;
  const int full = std::min(static_cast<int>(r->prefix_blocks.size()), r->kv_tokens / prefix_tokens_);
  for (; r->prefix_blocks_held < full; ++r->prefix_blocks_held) {
    const int i = r->prefix_blocks_held;
    const PrefixCache::Id id = r->prefix_blocks[static_cast<std::size_t>(i)];
    const double bytes = prefix_bytes(i + 1) - prefix_bytes(i);
    if (!prefix_cache_->contains(id)) {
      prefix_cache_->insert_pinned(id, bytes);  // its own KV becomes the cache's: memory use unchanged
      continue;
    }
    // Computed concurrently by another request: the cached copy is shared and this one freed (vLLM keeps both
    // copies until they are freed; the difference is one block for the length of a prefill).
    kv_used_bytes_ += prefix_cache_->pin(std::span(&id, 1)) - bytes;
  }
}

double Batcher::release_prefix(Request* r) {
  if (!prefix_cache_ || r->prefix_blocks_held == 0) return 0.0;
  const int held = r->prefix_blocks_held;
  r->prefix_blocks_held = 0;
  kv_used_bytes_ -= prefix_cache_->unpin(std::span(r->prefix_blocks).first(static_cast<std::size_t>(held)));
  return prefix_bytes(held);
}

}  // namespace fleetcast::simulator
