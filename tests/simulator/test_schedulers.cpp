// The SGLang and TensorRT-LLM step formation and preemption by swap, on the Batcher alone (no SimGrid).
#include <catch2/catch.hpp>

#include "batcher_support.hpp"
#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::Batcher;
using simulator::Request;

namespace {

using test::kv;
using test::req;
using test::sched;

// Steps the batcher until it has no work (or a step limit), one second per step.
template <class OnStep>
double run(Batcher& b, double t, OnStep on_step) {
  for (int i = 0; b.has_work() && i < 100000; ++i, t += 1.0) {
    on_step(b.schedule(t));
    b.complete(t + 1.0);
  }
  return t;
}

constexpr auto kSglang = specs::SchedulerPolicy::sglang;
constexpr auto kTrtllm = specs::SchedulerPolicy::trtllm;
constexpr auto kVllm = specs::SchedulerPolicy::vllm;
constexpr auto kAtom = specs::SchedulerPolicy::atom;

specs::SchedulerSpec atom(int seqs, int budget) {
  auto s = sched(kAtom, seqs, budget);
  s.chunked_prefill = false;
  return s;
}

}  // namespace

TEST_CASE("sglang: a waiting request makes the next step a prefill, and no step mixes prefill and decode",
          "[batcher][sglang]") {
  Batcher b(sched(kSglang, 64, 100), kv(1e9));
  Request a = req(50, 10), c = req(30, 10);
  b.add(&a);
  CHECK(b.schedule(0.0).prefill_tokens() == 50);
  b.complete(1.0);
  b.add(&c);
  // vLLM would run a's decode with c's prompt; SGLang runs the prompt alone and a's decode waits.
  const auto& second = b.schedule(1.0);
  CHECK(second.num_decode() == 0);
  CHECK(second.prefill_tokens() == 30);
  b.complete(2.0);
  const auto& third = b.schedule(2.0);
  CHECK(third.num_decode() == 2);
  CHECK(third.prefill.empty());
  b.complete(3.0);

  // A stream of arrivals: every step is one kind, and a step that starts with requests waiting is a prefill.
  std::vector<Request> more(40, req(70, 12));
  std::size_t next = 0;
  for (double t = 3.0; (b.has_work() || next < more.size()) && t < 10000.0; t += 1.0) {
    if (static_cast<int>(t) % 3 == 0 && next < more.size()) b.add(&more[next++]);
    if (!b.has_work()) continue;
    const bool waiting = b.waiting() > 0;
    const auto& batch = b.schedule(t);
    CHECK((batch.num_decode() == 0 || batch.prefill.empty()));
    if (waiting) CHECK(batch.prefill_tokens() > 0);
    b.complete(t + 1.0);
  }
  for (const Request& r : more) CHECK(r.generated == 12);
}

TEST_CASE("sglang --enable-mixed-chunk: the running decodes ride in the prefill step and come off its budget",
          "[batcher][sglang]") {
  for (const bool mixed : {false, true}) {
    INFO("mixed_chunk " << mixed);
    auto s = sched(kSglang, 64, 100);
    s.mixed_chunk = mixed;
    Batcher b(s, kv(1e9));
    Request a = req(50, 10), c = req(30, 10), d = req(70, 10);
    b.add(&a);
    CHECK(b.schedule(0.0).prefill_tokens() == 50);
    b.complete(1.0);
    b.add(&c);
    b.add(&d);
    const auto& second = b.schedule(1.0);
    if (mixed) {
      // a's decode takes 1 of the 100 tokens: c (30) fits, d (70) does not fit the 69 left and waits.
      CHECK(second.num_decode() == 1);
      CHECK(second.prefill_tokens() == 30);
    } else {
      // A prefill step without decodes: 30 + 70 = 100 fit, and a waits.
      CHECK(second.num_decode() == 0);
      CHECK(second.prefill_tokens() == 100);
    }
    b.complete(2.0);
    CHECK(a.generated == (mixed ? 2 : 1));
  }
}

TEST_CASE("sglang --scheduler-recv-interval: requests are taken in every N decode steps, at once after a prefill",
          "[batcher][sglang]") {
  auto s = sched(kSglang, 64, 100);
  s.recv_interval = 3;
  Batcher b(s, kv(1e9));
  Request a = req(10, 20), c = req(10, 20), d = req(10, 20);
  b.add(&a);  // an idle engine receives at once
  CHECK(b.schedule(0.0).prefill_tokens() == 10);
  b.complete(1.0);
  b.add(&c);  // the last step was a prefill: received at once
  CHECK(b.schedule(1.0).prefill_tokens() == 10);
  b.complete(2.0);
  CHECK(b.schedule(2.0).num_decode() == 2);  // a decode step: from here each counts 1
  b.complete(3.0);
  b.add(&d);
  CHECK(b.waiting() == 1);
  // The batches at t = 3 and 4 see a count of 1 and 2 and decode without d; at t = 5 it reaches 3: d is prefilled.
  CHECK(b.schedule(3.0).num_decode() == 2);
  b.complete(4.0);
  CHECK(b.schedule(4.0).num_decode() == 2);
  b.complete(5.0);
  CHECK(b.schedule(5.0).prefill_tokens() == 10);
  b.complete(6.0);
  CHECK(d.first_token_s == 6.0);
  // Without the interval d would have been prefilled in the step that started when it arrived.
  auto every_step = sched(kSglang, 64, 100);
  Batcher e(every_step, kv(1e9));
  Request a2 = req(10, 20), d2 = req(10, 20);
  e.add(&a2);
  e.schedule(0.0);
  e.complete(1.0);
  e.schedule(1.0);
  e.complete(2.0);
  e.add(&d2);
  CHECK(e.schedule(2.0).prefill_tokens() == 10);
}

TEST_CASE("sglang: a prompt longer than the chunk is cut there and its chunk ends the batch", "[batcher][sglang]") {
  auto s = sched(kSglang, 8, 256);
  s.chunk_tokens = 64;
  Batcher b(s, kv(1e9));
  Request a = req(200, 2), c = req(10, 2);
  b.add(&a);
  b.add(&c);
  std::vector<std::vector<int>> chunks;
  for (double t = 0.0; t < 4.0; t += 1.0) {
    std::vector<int> step;
    for (const auto& p : b.schedule(t).prefill) step.push_back(p.tokens);
    chunks.push_back(step);
    b.complete(t + 1.0);
  }
  // 200 = 64 + 64 + 64 + 8; c waits behind the chunked prompt and joins its last chunk (8 + 10 <= 64).
  CHECK(chunks == std::vector<std::vector<int>>{{64}, {64}, {64}, {8, 10}});
  CHECK(a.first_token_s == 4.0);
  CHECK(c.first_token_s == 4.0);
}

TEST_CASE("sglang: admission sets aside new_token_ratio of the running requests' remaining output",
          "[batcher][sglang]") {
  // 100 tokens of KV. a (40 in, 40 out) runs; c (20 + 20 = 40 tokens) waits: after a's prefill, 100 - 40 held
  // - 39 remaining x 0.7 = 32.7 tokens are left, less than 40. As a grows the margin only shrinks (a decode
  // adds a token and frees 0.7 of one; the ratio decays by 0.001 a step), so c starts when a finishes.
  // vLLM admits c at once: its prompt fits.
  for (auto policy : {kSglang, kVllm}) {
    Batcher b(sched(policy, 8, 1000), kv(100));
    Request a = req(40, 40), c = req(20, 20);
    b.add(&a);
    b.schedule(0.0);
    b.complete(1.0);
    b.add(&c);
    run(b, 1.0, [](const simulator::BatchShape&) {});
    CHECK(a.finish_s == 40.0);  // prefill step + 39 decodes
    if (policy == kSglang) {
      CHECK(c.scheduled_s == a.finish_s);
      CHECK(b.preemptions() == 0);
    } else {
      CHECK(c.scheduled_s == 1.0);
    }
  }
}

TEST_CASE("sglang: a decode that does not fit retracts the request with the fewest output tokens",
          "[batcher][sglang]") {
  // 1100 tokens of KV; a (10 in, 1000 out) runs alone for its prefill and 300 decodes, which decay
  // new_token_ratio from 0.7 to 0.7 - 300 x 0.602 / 600 = 0.399. Then c (10 in, 490 out) arrives: 10 + 490 <
  // 1100 - 310 held - 699 x 0.399 = 511.1, so it is admitted at once (at 0.7 it would not be: 300.7 left).
  // Both grow one token a step and outgrow the cache (310 + k + 10 + k > 1100 at k ~ 390, before c's 490
  // tokens are out): c, with fewer output tokens, is retracted and waits to prefill its prompt and output so
  // far again; a is never touched.
  Batcher b(sched(kSglang, 8, 1000), kv(1100));
  Request a = req(10, 1000), c = req(10, 490);
  b.add(&a);
  double t = 0.0;
  for (; t < 301.0; t += 1.0) {
    b.schedule(t);
    b.complete(t + 1.0);
  }
  REQUIRE(a.generated == 301);
  b.add(&c);
  int mixed = 0;
  run(b, t, [&](const simulator::BatchShape& batch) { mixed += batch.num_decode() > 0 && !batch.prefill.empty(); });
  CHECK(mixed == 0);
  CHECK(c.scheduled_s == 301.0);
  CHECK(a.preemptions == 0);
  CHECK(c.preemptions >= 1);
  CHECK(c.recomputes == c.preemptions);
  CHECK(a.generated == 1000);
  CHECK(c.generated == 490);
  CHECK(b.kv_used_bytes() == 0.0);
}

TEST_CASE("atom: whole prompts first while the budget holds them, then a decode batch, never both", "[batcher][atom]") {
  Batcher b(atom(8, 100), kv(1e9));
  Request a = req(60, 3), c = req(50, 3), d = req(30, 3);
  b.add(&a);
  b.add(&c);
  b.add(&d);
  // 60 fits the budget of 100, 60 + 50 does not: the step ends there (c is not cut, and d behind it waits too).
  const auto& first = b.schedule(0.0);
  REQUIRE(first.prefill.size() == 1);
  CHECK(first.prefill_tokens() == 60);
  b.complete(1.0);
  // c and d (80 tokens) together; a's decode waits for a step without prompts.
  const auto& second = b.schedule(1.0);
  CHECK(second.num_decode() == 0);
  CHECK(second.prefill_tokens() == 80);
  b.complete(2.0);
  const auto& third = b.schedule(2.0);
  CHECK(third.prefill.empty());
  CHECK(third.num_decode() == 3);
  b.complete(3.0);
  run(b, 3.0, [](const simulator::BatchShape&) {});
  for (const Request* r : {&a, &c, &d}) CHECK(r->generated == 3);
  // A prompt longer than the budget can never be scheduled whole: refused at arrival.
  Request big = req(101, 1);
  CHECK_FALSE(b.add(&big));
  CHECK(big.failed);
}

TEST_CASE("atom: a decode without a free block preempts the latest running request, which prefills again first",
          "[batcher][atom]") {
  // 100 tokens of KV: a (40 in) and c (40 in) prefill together, then decode until 80 + 2k > 100 at k = 11. c, the
  // latest, loses its KV and goes back to the front of the queue; with a running, its 51-token recompute (40 +
  // the 11 tokens it had) does not fit until a finishes.
  Batcher b(atom(8, 1000), kv(100));
  Request a = req(40, 30), c = req(40, 30);
  b.add(&a);
  b.add(&c);
  CHECK(b.schedule(0.0).prefill_tokens() == 80);
  b.complete(1.0);
  int both = 0;
  run(b, 1.0, [&](const simulator::BatchShape& batch) { both += batch.num_decode() > 0 && !batch.prefill.empty(); });
  CHECK(both == 0);
  CHECK(a.preemptions == 0);
  CHECK(c.preemptions == 1);
  CHECK(c.recomputes == 1);
  CHECK(a.generated == 30);
  CHECK(c.generated == 30);
  CHECK(b.kv_used_bytes() == 0.0);
}

TEST_CASE("trtllm guaranteed_no_evict admits only what fits its whole length and never preempts", "[batcher][trtllm]") {
  // The vLLM case of test_batcher: 100 tokens of KV, two requests of 40 + 20. vLLM (and TensorRT-LLM's
  // MAX_UTILIZATION) start both and pause the newer one when they outgrow the cache; GUARANTEED_NO_EVICT
  // starts the second only when the first has finished (60 + 60 > 100).
  for (auto capacity : {specs::CapacityPolicy::guaranteed_no_evict, specs::CapacityPolicy::max_utilization}) {
    auto s = sched(kTrtllm, 8, 1000);
    s.capacity = capacity;
    Batcher b(s, kv(100));
    Request a = req(40, 20), c = req(40, 20);
    b.add(&a);
    b.add(&c);
    const int first_step_prefills = static_cast<int>(b.schedule(0.0).prefill.size());
    b.complete(1.0);
    run(b, 1.0, [](const simulator::BatchShape&) {});
    CHECK(a.generated == 20);
    CHECK(c.generated == 20);
    if (capacity == specs::CapacityPolicy::guaranteed_no_evict) {
      CHECK(first_step_prefills == 1);
      CHECK(b.preemptions() == 0);
      CHECK(c.scheduled_s == a.finish_s);
    } else {
      CHECK(first_step_prefills == 2);
      CHECK(c.preemptions > 0);
      CHECK(a.preemptions == 0);
    }
  }
}

TEST_CASE("trtllm: decodes first, then context chunks of whole KV blocks", "[batcher][trtllm]") {
  Batcher b(sched(kTrtllm, 8, 100, 16), kv(1e9));
  Request a = req(20, 10), c = req(200, 2);
  b.add(&a);
  CHECK(b.schedule(0.0).prefill_tokens() == 20);
  b.complete(1.0);
  b.add(&c);
  // 99 tokens left after a's decode: a non-final chunk is 6 blocks of 16 = 96 tokens, then 96, then the last 8.
  std::vector<int> chunks;
  for (double t = 1.0; t < 4.0; t += 1.0) {
    const auto& batch = b.schedule(t);
    CHECK(batch.num_decode() == 1);
    chunks.push_back(batch.prefill_tokens());
    b.complete(t + 1.0);
  }
  CHECK(chunks == std::vector<int>{96, 96, 8});
  CHECK(c.first_token_s == 4.0);
}

TEST_CASE("trtllm batch waiting: beside running decodes a context waits up to N steps or until the step is full",
          "[batcher][trtllm]") {
  auto s = sched(kTrtllm, 8, 100);
  s.chunked_prefill = false;
  s.batch_wait_iters = 3;
  s.batch_wait_tokens_ratio = 0.5;  // 50 of the step's 100 tokens
  Batcher b(s, kv(1e9));
  Request a = req(10, 20), c = req(20, 20), d = req(60, 5);
  b.add(&a);
  CHECK(b.schedule(0.0).prefill_tokens() == 10);  // no decode runs: an idle engine never waits
  b.complete(1.0);
  b.add(&c);
  // 1 decode + 20 prompt tokens < 50: c is held back in the steps at t = 1, 2 and 3, and goes at t = 4.
  for (double t = 1.0; t < 4.0; t += 1.0) {
    const auto& batch = b.schedule(t);
    CHECK(batch.num_decode() == 1);
    CHECK(batch.prefill_tokens() == 0);
    b.complete(t + 1.0);
  }
  CHECK(b.schedule(4.0).prefill_tokens() == 20);
  b.complete(5.0);
  CHECK(c.first_token_s == 5.0);
  // Two decodes + a 60-token prompt reach the 50 tokens: d goes in the step it arrives for.
  b.add(&d);
  CHECK(b.schedule(5.0).prefill_tokens() == 60);
  b.complete(6.0);
  CHECK(d.first_token_s == 6.0);
  // Without batch waiting c would have been prefilled in the step after it arrived.
  auto no_wait = sched(kTrtllm, 8, 100);
  no_wait.chunked_prefill = false;
  Batcher e(no_wait, kv(1e9));
  Request a2 = req(10, 20), c2 = req(20, 20);
  e.add(&a2);
  e.schedule(0.0);
  e.complete(1.0);
  e.add(&c2);
  CHECK(e.schedule(1.0).prefill_tokens() == 20);
}

TEST_CASE("preemption by swap keeps the victim's KV and moves it out and back; a full swap space recomputes",
          "[batcher][swap]") {
  // 100 tokens of KV, two requests of 40 in + 20 out prefilled together in step 0. Both decode in steps 1-10;
  // in step 11 a needs a 51st token next to c's 50: c, the newer, is preempted holding 50 tokens. It comes
  // back in step 20, right after a has finished (a holds 51 to 59 tokens meanwhile, c needs 51).
  for (const double swap_space_tokens : {50.0, 49.0}) {
    auto s = sched(kVllm, 8, 1000);
    s.preemption = specs::PreemptionMode::swap;
    s.swap_space_gib = swap_space_tokens / 1073741824.0;
    Batcher b(s, kv(100));
    Request a = req(40, 20), c = req(40, 20);
    b.add(&a);
    b.add(&c);
    std::vector<double> swap_bytes;
    int prefill_tokens = 0;
    double t = 0.0;
    for (; b.has_work() && t < 1000.0; t += 1.0) {
      prefill_tokens += b.schedule(t).prefill_tokens();
      swap_bytes.push_back(b.step_swap_bytes());
      b.complete(t + 1.0);
    }
    CHECK(a.preemptions == 0);
    CHECK(c.preemptions == 1);
    CHECK(c.generated == 20);
    CHECK(b.swap_used_bytes() == 0.0);
    if (swap_space_tokens >= 50.0) {
      CHECK(c.swaps_out == 1);
      CHECK(c.swaps_in == 1);
      CHECK(c.recomputes == 0);
      CHECK(c.swapped_out_bytes == 50.0);
      CHECK(swap_bytes[11] == 50.0);  // swapped out
      CHECK(swap_bytes[20] == 50.0);  // swapped in
      CHECK(a.finish_s == 20.0);
      double others = 0.0;
      for (std::size_t i = 0; i < swap_bytes.size(); ++i) others += (i == 11 || i == 20) ? 0.0 : swap_bytes[i];
      CHECK(others == 0.0);
      CHECK(prefill_tokens == 80);  // no prompt computed twice
    } else {
      CHECK(c.swaps_out == 0);
      CHECK(c.recomputes == 1);
      for (double x : swap_bytes) CHECK(x == 0.0);
      CHECK(prefill_tokens == 80 + 40 + 11);  // c prefills its prompt and 11 outputs again
    }
  }
}

TEST_CASE("trtllm: a decode-only step pays decode_overhead_factor of the host overhead, a prefill step all of it",
          "[step_time][trtllm]") {
  auto j = test::small_scenario();
  const auto vllm = test::parse(j);
  j["deployment"]["scheduler"]["policy"] = "trtllm";
  const auto trtllm = test::parse(j);
  const auto profile = calibration::datasheet_profile(vllm.deployment.hardware, "vllm");
  const simulator::StepTimeModel plain(vllm.model, vllm.deployment, profile);
  const simulator::StepTimeModel graphed(trtllm.model, trtllm.deployment, profile);
  simulator::BatchShape decode;
  decode.decode_contexts = {1000, 2000, 3000};
  simulator::BatchShape mixed = decode;
  mixed.prefill.push_back({500, 0, true});
  const double overhead = profile.step_overhead_s;
  REQUIRE(overhead > 0.0);
  CHECK(graphed.predict(decode).op(simulator::Op::step_overhead).time_s == Approx(0.5 * overhead));
  CHECK(graphed.predict(decode).total_s == Approx(plain.predict(decode).total_s - 0.5 * overhead).epsilon(1e-12));
  CHECK(graphed.predict(mixed).total_s == plain.predict(mixed).total_s);
  CHECK(plain.predict(decode).op(simulator::Op::step_overhead).time_s == overhead);
}
