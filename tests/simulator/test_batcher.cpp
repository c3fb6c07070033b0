// Continuous batching bookkeeping, without SimGrid.
#include <catch2/catch.hpp>

#include "batcher_support.hpp"
#include "fleetcast/simulator/batcher.hpp"

using namespace fleetcast;
using simulator::Batcher;
using simulator::Request;

namespace {

using test::kv;
using test::req;
using test::sched;

}  // namespace

TEST_CASE("a long prompt is prefilled in chunks of the token budget", "[batcher]") {
  Batcher b(sched(8, 4096), kv(1e9));
  Request r = req(10000, 3);
  REQUIRE(b.add(&r));
  CHECK(b.schedule(0.0).prefill_tokens() == 4096);
  CHECK(b.complete(1.0).first_tokens == 0);
  CHECK(b.schedule(1.0).prefill[0].context_before == 4096);
  b.complete(2.0);
  const auto& last = b.schedule(2.0);
  CHECK(last.prefill_tokens() == 10000 - 8192);
  CHECK(last.prefill[0].completes_prompt);
  const auto out = b.complete(3.0);
  CHECK(out.first_tokens == 1);
  CHECK(r.first_token_s == 3.0);
  CHECK(r.scheduled_s == 0.0);
  // Then one token per step, with the context growing by one each time.
  CHECK(b.schedule(3.0).decode_contexts == std::vector<int>{10000});
  b.complete(4.0);
  CHECK(b.schedule(4.0).decode_contexts == std::vector<int>{10001});
  const auto done = b.complete(5.0);
  REQUIRE(done.finished.size() == 1);
  CHECK(r.finish_s == 5.0);
  CHECK(done.token_gaps_s == std::vector<double>{1.0});
  CHECK(b.kv_used_bytes() == 0.0);
  CHECK_FALSE(b.has_work());
}

TEST_CASE("decodes go first and new prompts fill the rest of the budget", "[batcher]") {
  Batcher b(sched(8, 100), kv(1e9));
  Request a = req(50, 10), c = req(500, 10);
  b.add(&a);
  b.schedule(0.0);
  b.complete(1.0);  // a prefilled, first token out
  b.add(&c);
  const auto& batch = b.schedule(1.0);
  CHECK(batch.num_decode() == 1);
  CHECK(batch.prefill_tokens() == 99);
}

TEST_CASE("max_num_seqs caps the running batch", "[batcher]") {
  Batcher b(sched(2, 1000), kv(1e9));
  Request r[3] = {req(10, 5), req(10, 5), req(10, 5)};
  for (auto& x : r) b.add(&x);
  CHECK(b.schedule(0.0).prefill.size() == 2);
  CHECK(b.waiting() == 1);
}

TEST_CASE("KV admission holds back prompts that do not fit and preemption frees room", "[batcher]") {
  // 100 tokens of KV: two requests of 40 + 20 output fit alone (60 each), not both to the end.
  Batcher b(sched(8, 1000), kv(100));
  Request a = req(40, 20), c = req(40, 20);
  b.add(&a);
  b.add(&c);
  CHECK(b.schedule(0.0).prefill.size() == 2);  // 80 tokens of prompt fit
  b.complete(1.0);
  long long preempted_before = b.preemptions();
  for (double t = 1.0; b.has_work() && t < 200.0; t += 1.0) {
    b.schedule(t);
    b.complete(t + 1.0);
  }
  CHECK(b.preemptions() > preempted_before);
  CHECK(c.preemptions > 0);  // the newer request yields to the older one
  CHECK(a.preemptions == 0);
  CHECK(a.finish_s >= 0.0);
  CHECK(c.finish_s > a.finish_s);
  CHECK(c.generated == 20);
}

TEST_CASE("a request longer than the whole KV cache fails at once", "[batcher]") {
  Batcher b(sched(8, 1000), kv(100));
  Request big = req(90, 20);
  CHECK_FALSE(b.add(&big));
  CHECK(big.failed);
  CHECK_FALSE(b.has_work());
}
