// Which DP rank takes a new request under each engine's front end (simulator/dp_router.hpp): vLLM's queue score on
// counts published at most every 100 ms, TensorRT-LLM's fewest prompt tokens, SGLang's turns.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>

#include "batcher_support.hpp"
#include "fleetcast/simulator/dp_router.hpp"

using namespace fleetcast;
using simulator::Batcher;
using simulator::DpRouter;
using simulator::Request;

namespace {

specs::SchedulerSpec vllm_spec(int api_servers) {
  auto s = test::sched(8, 1000);
  s.api_servers = api_servers;
  return s;
}

std::vector<Batcher> ranks(const specs::SchedulerSpec& s, int n) {
  std::vector<Batcher> b;
  for (int k = 0; k < n; ++k) b.emplace_back(s, test::kv(1e9));
  return b;
}

// Routes `n` requests at `now`, returning the ranks picked.
std::vector<std::size_t> route(DpRouter& router, const std::vector<Batcher>& b, int n, double now) {
  std::vector<std::size_t> picked;
  for (int i = 0; i < n; ++i) picked.push_back(router.route(b, now));
  return picked;
}

}  // namespace

TEST_CASE("DP router: SGLang takes the ranks in turn, TensorRT-LLM the rank with the fewest prompt tokens", "[dp]") {
  const auto sglang = test::sched(specs::SchedulerPolicy::sglang, 8, 1000);
  auto b = ranks(sglang, 3);
  DpRouter turns(sglang, 3, true, 1, 0);
  CHECK(route(turns, b, 5, 0.0) == std::vector<std::size_t>{0, 1, 2, 0, 1});

  const auto trt = test::sched(specs::SchedulerPolicy::trtllm, 8, 1000);
  auto t = ranks(trt, 3);
  Request long_prompt = test::req(500, 5), short_prompt = test::req(100, 5);
  t[0].add(&long_prompt);
  t[1].add(&short_prompt);
  DpRouter fewest(trt, 3, true, 1, 0);
  CHECK(fewest.route(t, 0.0) == 2);  // no prompt at all
  Request third = test::req(200, 5);
  t[2].add(&third);
  CHECK(fewest.route(t, 0.0) == 1);  // 100 < 200 < 500 prompt tokens
}

TEST_CASE("DP router: a vLLM API server adds its own guess to the rank it picks until counts are published", "[dp]") {
  const auto s = vllm_spec(1);
  auto b = ranks(s, 3);
  DpRouter router(s, 3, true, 1, 0);
  REQUIRE(router.servers() == 1);
  // Nothing published yet: each pick adds 1 waiting (score 4) to that rank, so one server takes the ranks in turn.
  CHECK(route(router, b, 4, 0.0) == std::vector<std::size_t>{0, 1, 2, 0});
  CHECK(router.view(0)[0].waiting == 2);
  CHECK(router.view(0)[1].waiting == 1);
}

TEST_CASE("DP router: vLLM scores a rank 4 x waiting + running on the counts its ranks sent after a step", "[dp]") {
  const auto s = vllm_spec(1);
  auto b = ranks(s, 2);
  DpRouter router(s, 2, true, 1, 0);
  // Rank 0 runs 3 requests (score 3), rank 1 has one waiting (score 4): rank 0 takes the next one.
  std::vector<Request> r(4, test::req(10, 100));
  for (int i = 0; i < 3; ++i) b[0].add(&r[static_cast<std::size_t>(i)]);
  b[0].schedule(0.0);
  b[0].complete(0.5);
  b[1].add(&r[3]);
  REQUIRE(b[0].running() == 3);
  REQUIRE(b[1].waiting() == 1);
  router.report(b, 0.5);  // the first counts are published at once
  CHECK(router.view(0)[0] == DpRouter::Counts{0, 3});
  CHECK(router.view(0)[1] == DpRouter::Counts{1, 0});
  CHECK(router.route(b, 0.5) == 0);  // 3 < 4
  CHECK(router.route(b, 0.5) == 1);  // 4 < 3 + 4 after its own guess on rank 0
}

TEST_CASE("DP router: vLLM's coordinator publishes changed counts 100 ms after its last publication at the earliest",
          "[dp]") {
  const auto s = vllm_spec(1);
  auto b = ranks(s, 2);
  DpRouter router(s, 2, true, 1, 0);
  Request a = test::req(10, 100), c = test::req(10, 100);
  b[0].add(&a);
  router.report(b, 1.0);  // published at 1.0
  CHECK(router.view(0)[0].waiting == 1);
  b[1].add(&c);
  router.report(b, 1.04);                 // rank 1 has one too, sent at 1.04
  CHECK(router.route(b, 1.09) == 1);      // the server still sees rank 1 empty (score 0 < 4)
  CHECK(router.view(0)[1].waiting == 1);  // its own guess
  CHECK(router.route(b, 1.099) == 1);     // 4 and its guess of 4 on rank 1: a tie, and the scan now starts at 1
  CHECK(router.view(0)[1].waiting == 2);
  router.route(b, 1.1);  // published at 1.1 = 1.0 + 100 ms: the guesses give way to the counts first
  CHECK(router.view(0)[0].waiting + router.view(0)[1].waiting == 3);  // 1 + 1 published, 1 guessed
  // No change for 4 s: the idle publication replaces the guesses again.
  router.route(b, 2.0);
  CHECK(router.view(0)[0].waiting + router.view(0)[1].waiting == 4);
  router.route(b, 5.2);  // 1.1 + 4 s
  CHECK(router.view(0)[0].waiting + router.view(0)[1].waiting == 3);
}

TEST_CASE("DP router: vLLM starts one API server per DP rank, each guessing for every server", "[dp]") {
  const auto s = vllm_spec(0);
  auto b = ranks(s, 4);
  DpRouter router(s, 4, true, 7, 0);
  REQUIRE(router.servers() == 4);
  const auto picked = route(router, b, 400, 0.0);
  int guessed = 0;
  for (int server = 0; server < 4; ++server) {
    for (const auto& c : router.view(static_cast<std::size_t>(server))) guessed += c.waiting;
  }
  CHECK(guessed == 400 * 4);  // each pick adds `servers` to its server's view
  // Every server takes the ranks in turn from its own place, so the ranks end within a few requests of each other.
  std::vector<int> per_rank(4, 0);
  for (std::size_t k : picked) ++per_rank[k];
  for (int n : per_rank) CHECK(std::abs(n - 100) <= 4);
}

TEST_CASE("DP router: a dense model's vLLM ranks send no counts, so guesses alone place requests", "[dp]") {
  const auto s = vllm_spec(1);
  auto b = ranks(s, 2);
  std::vector<Request> r(5, test::req(10, 100));
  for (auto& x : r) b[0].add(&x);  // rank 0 is far busier
  DpRouter dense(s, 2, false, 1, 0), moe(s, 2, true, 1, 0);
  dense.report(b, 0.0);
  moe.report(b, 0.0);
  CHECK(route(dense, b, 4, 1.0) == std::vector<std::size_t>{0, 1, 0, 1});
  CHECK(route(moe, b, 4, 1.0) == std::vector<std::size_t>{1, 1, 1, 1});  // 20 > 4, 8, 12, 16
}
