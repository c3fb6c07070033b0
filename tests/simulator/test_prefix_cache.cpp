// The prefix cache's block bookkeeping, and the Batcher using it: hits, pinning, LRU eviction, memory.
#include <catch2/catch.hpp>
#include <vector>

#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/prefix_cache.hpp"

using namespace fleetcast;
using simulator::Batcher;
using simulator::PrefixCache;
using simulator::Request;
using Ids = std::vector<PrefixCache::Id>;

namespace {

// A request computes and releases blocks: they end up cached and unreferenced, `ids` last first.
void cache_unreferenced(PrefixCache& c, const Ids& ids, double bytes = 10.0) {
  for (auto id : ids) c.insert_pinned(id, bytes);
  c.unpin(ids);
}

}  // namespace

TEST_CASE("a hit is the leading run of cached blocks only", "[prefix_cache]") {
  PrefixCache c;
  cache_unreferenced(c, {1, 2, 4});
  CHECK(c.match(Ids{1, 2, 3, 4}) == 2);  // 4 is cached but follows the miss at 3
  CHECK(c.match(Ids{3, 1, 2}) == 0);
  CHECK(c.match(Ids{1, 2, 4}) == 3);
  CHECK(c.match(Ids{}) == 0);
}

TEST_CASE("unreferenced blocks are evicted least recently freed first, a request's tail before its head",
          "[prefix_cache]") {
  PrefixCache c;
  cache_unreferenced(c, {1, 2, 3});  // freed tail first: order 3, 2, 1
  cache_unreferenced(c, {10, 11});   // then 11, 10
  CHECK(c.unreferenced_bytes() == 50.0);
  CHECK(c.evict(15.0) == 20.0);  // whole blocks: 3 and 2
  CHECK_FALSE(c.contains(3));
  CHECK_FALSE(c.contains(2));
  CHECK(c.contains(1));
  CHECK(c.match(Ids{1, 2, 3}) == 1);
  CHECK(c.evicted_blocks() == 2);
  // Using block 1 again and freeing it makes it the most recently freed: 11 and 10 go before it.
  c.pin(Ids{1});
  c.unpin(Ids{1});
  CHECK(c.evict(20.0) == 20.0);
  CHECK(c.contains(1));
  CHECK_FALSE(c.contains(10));
  CHECK_FALSE(c.contains(11));
  CHECK(c.unreferenced_bytes() == 10.0);
}

TEST_CASE("pinned blocks are never evicted and leave the free pool until their last reference goes", "[prefix_cache]") {
  PrefixCache c;
  cache_unreferenced(c, {1, 2});
  CHECK(c.unreferenced_bytes(Ids{1, 2}) == 20.0);
  CHECK(c.pin(Ids{1}) == 10.0);  // leaves the free pool
  CHECK(c.pin(Ids{1}) == 0.0);   // a second reference takes nothing more
  CHECK(c.references(1) == 2);
  CHECK(c.unreferenced_bytes() == 10.0);
  CHECK(c.evict(1e9) == 10.0);  // only block 2 could go
  CHECK(c.contains(1));
  CHECK(c.unpin(Ids{1}) == 0.0);  // still referenced once
  CHECK(c.unpin(Ids{1}) == 10.0);
  CHECK(c.unreferenced_bytes() == 10.0);
  CHECK(c.evict(1.0) == 10.0);
  CHECK(c.size() == 0);
}

namespace {

constexpr int kPrefix = 4;  // tokens per prefix block in the Batcher tests; KV blocks of 1 token, 1 byte each

specs::SchedulerSpec sched(int budget) {
  specs::SchedulerSpec s;
  s.max_num_seqs = 8;
  s.max_num_batched_tokens = budget;
  s.kv_block_tokens = 1;
  return s;
}

simulator::KvBudget bytes_per_token(double capacity) {
  return {capacity, [](double tokens) { return tokens; }};
}

Request req(int in, int out, Ids blocks) {
  Request r;
  r.input_tokens = in;
  r.output_tokens = out;
  r.prefix_blocks = std::move(blocks);
  return r;
}

// Steps until r finishes; returns the first step's prefill shape.
simulator::PrefillChunk run_alone(Batcher& b, Request& r) {
  REQUIRE(b.add(&r));
  const auto first = b.schedule(0.0);
  REQUIRE(first.prefill.size() == 1);
  double t = 1.0;
  b.complete(t);
  while (b.has_work()) {
    b.schedule(t);
    b.complete(t += 1.0);
  }
  return first.prefill[0];
}

}  // namespace

TEST_CASE("a request prefills only what follows its cached blocks, and always its last prompt token", "[batcher]") {
  Batcher b(sched(1000), bytes_per_token(1000), std::nullopt, kPrefix);
  Request a = req(10, 2, {1, 2});  // 10 tokens: 2 full blocks of 4
  const auto pa = run_alone(b, a);
  CHECK(pa.tokens == 10);
  CHECK(a.prefix_hit_tokens == 0);
  CHECK(b.kv_used_bytes() == 0.0);
  CHECK(b.prefix_cache()->unreferenced_bytes() == 8.0);  // its two blocks stay cached, as free memory

  Request c = req(11, 2, {1, 2});
  const auto pc = run_alone(b, c);
  CHECK(pc.context_before == 8);
  CHECK(pc.tokens == 3);
  CHECK(c.prefix_hit_tokens == 8);

  // A prompt made only of cached blocks recomputes its last block: vLLM computes the last token at least.
  Request d = req(8, 2, {1, 2});
  const auto pd = run_alone(b, d);
  CHECK(pd.context_before == 4);
  CHECK(pd.tokens == 4);
  CHECK(d.prefix_hit_tokens == 4);

  // Another prefix misses: a later matching block does not count.
  Request e = req(9, 2, {7, 2});
  CHECK(run_alone(b, e).tokens == 9);
}

TEST_CASE("cached blocks count as free memory: they are evicted, least recently freed first, to admit a request",
          "[batcher]") {
  Batcher b(sched(1000), bytes_per_token(20), std::nullopt, kPrefix);
  Request a = req(8, 1, {1, 2});
  run_alone(b, a);
  Request c = req(8, 1, {3, 4});
  run_alone(b, c);
  CHECK(b.prefix_cache()->unreferenced_bytes() == 16.0);
  // 12 tokens of KV fit only if 8 of the 16 cached bytes go: a's blocks, freed first.
  Request big = req(12, 1, {9, 10, 11});
  CHECK(run_alone(b, big).tokens == 12);
  const PrefixCache& cache = *b.prefix_cache();
  CHECK(cache.evicted_blocks() == 2);
  CHECK_FALSE(cache.contains(1));
  CHECK(cache.contains(3));
  CHECK(cache.contains(4));
}

TEST_CASE("blocks running requests reference are pinned: counted once however many share them", "[batcher]") {
  Batcher b(sched(1000), bytes_per_token(1000), std::nullopt, kPrefix);
  Request a = req(9, 1, {1, 2});
  run_alone(b, a);
  // Two requests share a's 8 cached tokens and add 1 own token each (+ its output token's slot).
  Request c = req(9, 5, {1, 2}), d = req(9, 5, {1, 2});
  REQUIRE(b.add(&c));
  REQUIRE(b.add(&d));
  const auto& batch = b.schedule(0.0);
  REQUIRE(batch.prefill.size() == 2);
  CHECK(batch.prefill[0].tokens == 1);
  CHECK(batch.prefill[1].tokens == 1);
  CHECK(b.kv_used_bytes() == 8.0 + 1.0 + 1.0);  // the shared blocks once, each request's own token
  CHECK(b.prefix_cache()->unreferenced_bytes() == 0.0);
  CHECK(b.prefix_cache()->references(1) == 2);
}

// SGLang's radix cache and TensorRT-LLM's block reuse, on by default in both, share the bookkeeping: a prompt whose
// leading blocks are cached computes only the rest, from them on.
TEST_CASE("SGLang and TensorRT-LLM prefill only what follows the cached blocks too", "[batcher]") {
  for (const auto policy : {specs::SchedulerPolicy::sglang, specs::SchedulerPolicy::trtllm}) {
    CAPTURE(static_cast<int>(policy));
    specs::SchedulerSpec s = sched(1000);
    s.policy = policy;
    Batcher b(s, bytes_per_token(1000), std::nullopt, kPrefix);
    REQUIRE(b.prefix_cache());
    Request a = req(10, 2, {1, 2});
    CHECK(run_alone(b, a).tokens == 10);
    Request c = req(11, 2, {1, 2});
    const auto pc = run_alone(b, c);
    CHECK(pc.context_before == 8);
    CHECK(pc.tokens == 3);
    CHECK(c.prefix_hit_tokens == 8);
    CHECK(b.kv_used_bytes() == 0.0);  // all freed; the blocks stay cached as free memory
    s.prefix_caching = false;         // --disable-radix-cache, enable_block_reuse false
    Batcher off(s, bytes_per_token(1000), std::nullopt, kPrefix);
    CHECK_FALSE(off.prefix_cache());
  }
}
