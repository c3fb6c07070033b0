// SGLang's prefill delayer on Batchers alone: when new requests wait for the other DP ranks, for how long, and when
// they never do (python/sglang/srt/managers/prefill_delayer.py).
#include <catch2/catch.hpp>

#include "dp_ranks_support.hpp"

using namespace fleetcast;
using simulator::Request;
using Ranks = test::DpRanks;

namespace {

specs::SchedulerSpec delayed(int max_running, int max_delay_passes, bool on = true) {
  auto s = test::sched(specs::SchedulerPolicy::sglang, max_running, 1000);
  s.prefill_delayer = on;
  s.prefill_delayer_max_delay_passes = max_delay_passes;
  return s;
}

}  // namespace

TEST_CASE("prefill delayer: a request on one rank waits max_delay_passes - 1 steps while the other rank has none",
          "[batcher][sglang][delayer]") {
  Ranks e(delayed(8, 3));
  Request a0 = test::req(10, 50), a1 = test::req(10, 50), c = test::req(20, 5);
  e.ranks[0].add(&a0);
  e.ranks[1].add(&a1);
  CHECK(e.step() == std::pair{10, 10});  // every rank has one and slots to spare: no wait
  e.ranks[0].add(&c);
  CHECK(e.step() == std::pair{0, 0});     // "mixed": held, count 1
  CHECK(e.batches[0].num_decode() == 1);  // rank 0 runs its decode batch instead
  CHECK(e.step() == std::pair{0, 0});     // count 2 = max_delay_passes - 1
  CHECK(e.step() == std::pair{20, 0});    // wait_timeout: it goes
  CHECK(c.first_token_s == 4.0);

  Ranks off(delayed(8, 3, false));
  Request b0 = test::req(10, 50), b1 = test::req(10, 50), d = test::req(20, 5);
  off.ranks[0].add(&b0);
  off.ranks[1].add(&b1);
  off.step();
  off.ranks[0].add(&d);
  CHECK(off.step() == std::pair{20, 0});
  CHECK(d.first_token_s == 2.0);
}

TEST_CASE("prefill delayer: requests on every rank go at once while slots are free", "[batcher][sglang][delayer]") {
  Ranks e(delayed(8, 30));
  Request a0 = test::req(10, 50), a1 = test::req(10, 50), c0 = test::req(20, 5), c1 = test::req(30, 5);
  e.ranks[0].add(&a0);
  e.ranks[1].add(&a1);
  e.step();
  e.ranks[0].add(&c0);
  e.ranks[1].add(&c1);
  CHECK(e.step() == std::pair{20, 30});  // 8 slots - 1 running >= the recent prefill batch of 1
}

TEST_CASE("prefill delayer: with every rank ready they wait while the free slots are fewer than a recent prefill batch",
          "[batcher][sglang][delayer]") {
  for (const int max_running : {4, 8}) {
    Ranks e(delayed(max_running, 3));
    std::vector<Request> first(6, test::req(10, 50));
    for (std::size_t i = 0; i < first.size(); ++i) e.ranks[i / 3].add(&first[i]);
    CHECK(e.step() == std::pair{30, 30});  // three each; the recent prefill batch is 3
    Request x0 = test::req(10, 2), x1 = test::req(10, 2);
    e.ranks[0].add(&x0);
    e.ranks[1].add(&x1);
    // 4 - 3 running = 1 free slot < 3: the slot condition, but the first time it holds it is skipped.
    CHECK(e.step() == std::pair{10, 10});
    e.step();  // x0 and x1 decode their second and last token
    REQUIRE(x0.finish_s == 3.0);
    Request y0 = test::req(10, 5), y1 = test::req(10, 5);
    e.ranks[0].add(&y0);
    e.ranks[1].add(&y1);
    INFO("max_num_seqs " << max_running);
    if (max_running == 4) {
      CHECK(e.step() == std::pair{0, 0});  // 1 free slot < 3 again: held, count 1
      CHECK(e.step() == std::pair{0, 0});  // count 2
      CHECK(e.step() == std::pair{10, 10});
      CHECK(y0.first_token_s == 6.0);
    } else {
      CHECK(e.step() == std::pair{10, 10});  // 5 free slots: no wait
      CHECK(y0.first_token_s == 4.0);
    }
  }
}

TEST_CASE("prefill delayer: no wait when no rank runs anything, and none without SGLang's delayer over several ranks",
          "[batcher][sglang][delayer]") {
  Ranks e(delayed(8, 30));
  Request a = test::req(10, 50), b = test::req(20, 5);
  e.ranks[0].add(&a);
  CHECK(e.step() == std::pair{10, 0});  // "mixed", but both ranks idle: the passes cost nothing and time out at once
  e.ranks[1].add(&b);
  CHECK(e.step() == std::pair{0, 0});  // "mixed" while rank 0 decodes: held

  Ranks one(delayed(8, 30), 1);
  Request c = test::req(10, 50), d = test::req(20, 5);
  one.ranks[0].add(&c);
  one.step();
  one.ranks[0].add(&d);
  CHECK(one.step() == std::pair{20, 0});

  auto vllm = delayed(8, 30);
  vllm.policy = specs::SchedulerPolicy::vllm;
  Ranks other(vllm);
  Request f0 = test::req(10, 50), f1 = test::req(10, 50), g = test::req(20, 5);
  other.ranks[0].add(&f0);
  other.ranks[1].add(&f1);
  other.step();
  other.ranks[0].add(&g);
  CHECK(other.step().first == 20);
}
