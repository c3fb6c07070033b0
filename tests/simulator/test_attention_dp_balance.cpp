// TensorRT-LLM's attention-DP balance on Batchers alone: when contexts are held, for how long, and when they never
// are (PyExecutor._balance_adp_requests).
#include <catch2/catch.hpp>

#include "dp_ranks_support.hpp"
#include "fleetcast/simulator/attention_dp_balance.hpp"

using namespace fleetcast;
using simulator::AttentionDpBalance;
using simulator::Batcher;
using simulator::BatchShape;
using simulator::Request;

namespace {

specs::SchedulerSpec balanced(int timeout_iters, int batching_wait_iters) {
  auto s = test::sched(specs::SchedulerPolicy::trtllm, 8, 1000);
  s.adp_balance = true;
  s.adp_timeout_iters = timeout_iters;
  s.adp_batching_wait_iters = batching_wait_iters;
  return s;
}

}  // namespace

TEST_CASE("attention-DP balance: a context on one rank waits for the timeout while every rank decodes",
          "[batcher][trtllm][adp]") {
  test::DpRanks e(balanced(3, 2));
  Request a0 = test::req(10, 50), a1 = test::req(10, 50), c = test::req(20, 5);
  e.ranks[0].add(&a0);
  e.ranks[1].add(&a1);
  CHECK(e.step() == std::pair{10, 10});  // both ranks have a context and no decodes: no wait
  e.ranks[0].add(&c);
  // The waiting count runs 1, 2 (held), 3 = the timeout: c goes in the third step after it arrived.
  CHECK(e.step() == std::pair{0, 0});
  CHECK(e.step() == std::pair{0, 0});
  CHECK(e.batches[0].num_decode() == 1);  // the decodes go on meanwhile
  CHECK(e.step() == std::pair{20, 0});
  CHECK(c.first_token_s == 4.0);
  // Without the balance c would have gone in the step it arrived for.
  auto off = balanced(3, 2);
  off.adp_balance = false;
  test::DpRanks plain(off);
  Request b0 = test::req(10, 50), b1 = test::req(10, 50), d = test::req(20, 5);
  plain.ranks[0].add(&b0);
  plain.ranks[1].add(&b1);
  plain.step();
  plain.ranks[0].add(&d);
  CHECK(plain.step() == std::pair{20, 0});
  CHECK(d.first_token_s == 2.0);
}

TEST_CASE("attention-DP balance: once every rank has a context they wait batching_wait_iters more, then go together",
          "[batcher][trtllm][adp]") {
  test::DpRanks e(balanced(50, 2));
  Request a0 = test::req(10, 50), a1 = test::req(10, 50), c0 = test::req(20, 5), c1 = test::req(30, 5);
  e.ranks[0].add(&a0);
  e.ranks[1].add(&a1);
  e.step();
  e.ranks[0].add(&c0);
  CHECK(e.step() == std::pair{0, 0});  // rank 1 has no context: held (waiting count 1 of 50)
  e.ranks[1].add(&c1);
  CHECK(e.step() == std::pair{0, 0});  // both have one, both decode: batching wait 1 of 2
  CHECK(e.step() == std::pair{0, 0});  // 2 of 2
  CHECK(e.step() == std::pair{20, 30});
  CHECK(c0.first_token_s == c1.first_token_s);
}

TEST_CASE("attention-DP balance: no rank's context waits while some rank has contexts and no decodes",
          "[batcher][trtllm][adp]") {
  test::DpRanks e(balanced(50, 10));
  Request a0 = test::req(10, 50), c0 = test::req(20, 5), c1 = test::req(30, 5);
  e.ranks[0].add(&a0);
  CHECK(e.step() == std::pair{10, 0});  // rank 1 idle, rank 0 only a context: nothing decodes, no wait
  // Rank 1 still idle runs a dummy generation request: it counts as decoding, so rank 0's new context waits.
  e.ranks[0].add(&c0);
  CHECK(e.step() == std::pair{0, 0});
  // A fresh context on rank 1, which has no decodes: the engine would otherwise idle there, so both go at once.
  e.ranks[1].add(&c1);
  CHECK(e.step() == std::pair{20, 30});
}

TEST_CASE("attention-DP balance: off unless TensorRT-LLM's scheduler asks for it over several ranks",
          "[batcher][trtllm][adp]") {
  auto vllm = balanced(3, 2);
  vllm.policy = specs::SchedulerPolicy::vllm;
  for (const auto& [spec, ranks] : {std::pair{vllm, 2}, std::pair{balanced(3, 2), 1}}) {
    std::vector<Batcher> b;
    for (int k = 0; k < ranks; ++k) b.emplace_back(spec, test::kv(1e9));
    std::vector<BatchShape> batches(static_cast<std::size_t>(ranks));
    Request a = test::req(10, 50), c = test::req(20, 5);
    b[0].add(&a);
    batches[0] = b[0].schedule(0.0);
    b[0].complete(1.0);
    b[0].add(&c);
    batches[0] = b[0].schedule(1.0);
    AttentionDpBalance balance(spec, ranks);
    CHECK_FALSE(balance.apply(b, batches));
    CHECK(batches[0].prefill_tokens() == 20);
  }
}
