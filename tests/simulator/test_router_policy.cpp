// The router's placement policies, without SimGrid: each one's defining choice on crafted loads.
#include <catch2/catch.hpp>

#include <vector>

#include "fleetcast/simulator/router_policy.hpp"

using namespace fleetcast;
using simulator::KvLoadReport;
using simulator::Placement;
using specs::RouterPolicy;

TEST_CASE("round robin cycles through the replicas exactly, whatever their load", "[router]") {
  Placement p(RouterPolicy::round_robin, 3, 1, 100.0);
  p.report(0, {90.0, 100.0, 0});  // a full replica still gets its turn
  std::vector<int> picks;
  for (int i = 0; i < 7; ++i) picks.push_back(p.place(10.0));
  CHECK(picks == std::vector<int>{0, 1, 2, 0, 1, 2, 0});
}

TEST_CASE("least outstanding picks the replica with the fewest requests in flight, ties to the lowest", "[router]") {
  Placement p(RouterPolicy::least_outstanding, 3, 1, 100.0);
  CHECK(p.place(0.0) == 0);
  CHECK(p.place(0.0) == 1);
  CHECK(p.place(0.0) == 2);
  CHECK(p.place(0.0) == 0);  // all at one: the lowest index
  p.done(1);
  p.done(2);  // 0: 2, 1: 0, 2: 0
  CHECK(p.place(0.0) == 1);
  CHECK(p.place(0.0) == 2);
  CHECK(p.place(0.0) == 1);
  CHECK(p.outstanding(0) == 2);
  CHECK(p.outstanding(1) == 2);
  CHECK(p.outstanding(2) == 1);
}

namespace {

// Places requests until replica r holds at least targets[r], then completes the extras: the policy under test
// does the placing, so this works for any policy that eventually reaches every replica.
void load_to(Placement& p, const std::vector<int>& targets) {
  const auto below = [&] {
    for (std::size_t r = 0; r < targets.size(); ++r)
      if (p.outstanding(static_cast<int>(r)) < targets[r]) return true;
    return false;
  };
  while (below()) p.place(0.0);
  for (std::size_t r = 0; r < targets.size(); ++r)
    while (p.outstanding(static_cast<int>(r)) > targets[r]) p.done(static_cast<int>(r));
}

}  // namespace

TEST_CASE("power of two never picks the busier of its two draws", "[router]") {
  // Replica r holds 100 r requests, and each pick completes at once so the loads stay put: the pick is the
  // lower index of two distinct uniform draws.
  const int n = 8;
  Placement p(RouterPolicy::power_of_two, n, 42, 100.0);
  std::vector<int> targets;
  for (int r = 0; r < n; ++r) targets.push_back(100 * r);
  load_to(p, targets);
  const int picks = 4000;
  std::vector<int> chosen(n, 0);
  for (int i = 0; i < picks; ++i) {
    const int r = p.place(0.0);
    ++chosen[static_cast<std::size_t>(r)];
    p.done(r);
  }
  CHECK(chosen[n - 1] == 0);  // the busiest loses every comparison
  // P(pick r) = P(r is drawn and the other draw is busier) = 2 (n - 1 - r) / (n (n - 1)).
  for (int r = 0; r < n - 1; ++r) {
    const double expected = 2.0 * (n - 1 - r) / (n * (n - 1.0));
    CHECK(chosen[static_cast<std::size_t>(r)] / static_cast<double>(picks) == Approx(expected).margin(0.025));
  }
}

TEST_CASE("power of two steers around a heavily loaded replica", "[router]") {
  // Replica 2 starts with 200 requests in flight; 400 more arrive and none completes. Uniform placement would
  // give it 1/4 of them; the others only reach ~133 each, so it should get almost none.
  Placement p(RouterPolicy::power_of_two, 4, 7, 100.0);
  load_to(p, {0, 0, 200, 0});
  int to_busy = 0;
  for (int i = 0; i < 400; ++i) to_busy += p.place(0.0) == 2 ? 1 : 0;
  CHECK(to_busy < 400 / 4 / 10);
  // Seeded: the same seed draws the same replicas.
  Placement a(RouterPolicy::power_of_two, 5, 3, 100.0), b(RouterPolicy::power_of_two, 5, 3, 100.0);
  for (int i = 0; i < 50; ++i) CHECK(a.place(0.0) == b.place(0.0));
}

TEST_CASE("least KV load picks the lowest KV share the replicas reported, ties to the lowest", "[router]") {
  Placement p(RouterPolicy::least_kv_load, 3, 1, 100.0);
  CHECK(p.place(0.0) == 0);  // nothing known: all equal
  p.report(0, {50.0, 100.0, 1});
  p.report(1, {20.0, 100.0, 0});
  p.report(2, {70.0, 100.0, 0});
  CHECK(p.place(0.0) == 1);
  p.report(1, {40.0, 200.0, 1});  // a share, not bytes: 0.2 of a bigger cache beats 0.3 of a smaller one
  p.report(0, {30.0, 100.0, 1});
  CHECK(p.kv_share(1) == Approx(0.2));
  CHECK(p.place(0.0) == 1);
  p.report(1, {60.0, 200.0, 2});
  p.report(2, {30.0, 100.0, 0});  // 0 and 2 tie at 0.3: the lower index
  CHECK(p.place(0.0) == 0);
  CHECK(p.outstanding(0) == 2);  // least_kv_load ignores counts: 0 already had one
}

TEST_CASE("least KV load counts prompts it sent that the replica had not yet reported", "[router]") {
  Placement p(RouterPolicy::least_kv_load, 2, 1, 100.0);
  // A burst of arrivals between two reports: each prompt of 30 bytes counts where it went.
  CHECK(p.place(30.0) == 0);
  CHECK(p.kv_share(0) == Approx(0.3));
  CHECK(p.place(30.0) == 1);
  CHECK(p.place(30.0) == 0);
  CHECK(p.kv_share(0) == Approx(0.6));
  // Replica 0 took in the first of its two: its report includes that prompt, the second still counts on top.
  p.report(0, {32.0, 100.0, 1});
  CHECK(p.kv_share(0) == Approx(0.62));
  p.report(0, {64.0, 100.0, 2});
  CHECK(p.kv_share(0) == Approx(0.64));
  // A report older than what the router knows (fewer requests taken in) is ignored.
  p.report(0, {10.0, 100.0, 1});
  CHECK(p.kv_share(0) == Approx(0.64));
  // Completions free KV: the replica with room gets the next request.
  p.report(0, {5.0, 100.0, 2});
  CHECK(p.place(1.0) == 0);
}
