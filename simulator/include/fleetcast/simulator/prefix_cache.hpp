#pragma once
// One replica's prefix cache, as vLLM v1 keeps it (v0.11 vllm/v1/core/block_pool.py, kv_cache_manager.py):
// KV blocks whose content is known by hash. A block referenced by a running request is pinned; a block no
// request references stays in memory as part of the free pool, in least-recently-freed order, and is evicted
// from the front of that order when the allocator needs space. A lookup hits the longest run of leading blocks
// that are cached; a later block after a miss does not count (the ids are chained, so it could not be reused).
// Blocks are identified by prefix block ids (request.hpp) and weigh what their KV takes in bytes, so that the
// cache and the requests share one byte budget. Pure bookkeeping: the Batcher decides when to call what.

#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>

namespace fleetcast::simulator {

class PrefixCache {
public:
  using Id = std::uint64_t;

  // Leading blocks of `ids` that are cached, in a row from the first.
  int match(std::span<const Id> ids) const;
  bool contains(Id id) const { return blocks_.contains(id); }
  int references(Id id) const;  // 0 when unreferenced or absent

  // Bytes of the (cached) blocks among `ids` that no request references: what pinning them takes from the
  // free pool.
  double unreferenced_bytes(std::span<const Id> ids) const;
  // One more reference to each of `ids` (all cached); returns the bytes that left the free pool.
  double pin(std::span<const Id> ids);
  // One reference less to each of `ids`, the last first: a block no longer referenced joins the free pool at its
  // most recently freed end, a request's tail blocks before its head ones, so that the tail is evicted first
  // (vLLM frees a request's blocks in reverse order). Returns the bytes that joined the free pool.
  double unpin(std::span<const Id> ids);
  // Adds a block just computed, referenced once by the request that computed it (not cached yet).
  void insert_pinned(Id id, double bytes);
  // Evicts unreferenced blocks, least recently freed first, until at least `bytes` are freed or none is left;
  // returns the bytes freed.
  double evict(double bytes);

  double unreferenced_bytes() const { return free_bytes_; }  // evictable: free memory that still holds KV
  std::size_t size() const { return blocks_.size(); }
  std::size_t unreferenced() const { return free_order_.size(); }
  long long evicted_blocks() const { return evicted_; }

private:
  struct Block {
    double bytes = 0.0;
    int refs = 0;
    std::list<Id>::iterator free_at;  // its place in free_order_ while refs == 0
  };
  std::unordered_map<Id, Block> blocks_;
  std::list<Id> free_order_;  // unreferenced blocks, front: evicted first
  double free_bytes_ = 0.0;
  long long evicted_ = 0;
};

}  // namespace fleetcast::simulator
