// A workload class that replays a request trace as recorded (arrival kind "trace"): the spec's rules, the
// resolved lengths and rate, the replayed requests (times, lengths, shared block ids) and a whole simulation.
#include <catch2/catch.hpp>

#include "fleetcast/simulator/request_generator.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/simulator/trace_classes.hpp"
#include "fleetcast/specs/error.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

const std::string kTrace = FLEETCAST_SIMULATOR_FIXTURES "/replay_mooncake.jsonl";

nlohmann::json trace_scenario(nlohmann::json arrival_extra = nlohmann::json::object()) {
  auto j = test::small_scenario();
  nlohmann::json arrival = {{"kind", "trace"}, {"file", kTrace}};
  arrival.update(arrival_extra);
  j["workload"] = {{"arrival", arrival}};
  j["num_requests"] = 6;
  return j;
}

}  // namespace

TEST_CASE("trace arrivals: the trace gives lengths and times, so the spec may not", "[trace_replay]") {
  const auto s = test::parse(trace_scenario({{"rate_scale", 2.0}, {"loops", 3}}));
  const auto& t = s.workload.classes.at(0).arrival.trace;
  CHECK(t.path == kTrace);  // absolute: kept
  CHECK(t.rate_scale == 2.0);
  CHECK(t.loops == 3);
  // Written back as given, without lengths.
  const auto echoed = specs::to_json(s)["workload"];
  CHECK(echoed["arrival"]["file"] == kTrace);
  CHECK_FALSE(echoed.contains("input_tokens"));
  CHECK(specs::to_json(test::parse(specs::to_json(s))) == specs::to_json(s));  // parse(to_json(x)) == x

  auto with_lengths = trace_scenario();
  with_lengths["workload"]["input_tokens"] = {{"kind", "fixed"}, {"value", 10}};
  REQUIRE_THROWS_WITH(test::parse(with_lengths), Catch::Contains("workload.input_tokens") &&
                                                      Catch::Contains("the trace gives the lengths"));
  REQUIRE_THROWS_WITH(test::parse(trace_scenario({{"rate_per_s", 3.0}})), Catch::Contains("workload.arrival.rate_per_s"));
  REQUIRE_THROWS_WITH(test::parse(trace_scenario({{"window_start_s", 5.0}, {"window_end_s", 2.0}})),
                      Catch::Contains("window_end_s"));
  REQUIRE_THROWS_WITH(test::parse(trace_scenario({{"format", "parquet"}})), Catch::Contains("workload.arrival.format"));
  // A relative file is found beside the spec that names it.
  CHECK(specs::parse_workload({{"arrival", {{"kind", "trace"}, {"file", "t.jsonl"}}}}, "/data/w.json", "workload")
            .classes.at(0)
            .arrival.trace.path == "/data/t.jsonl");
}

TEST_CASE("trace classes resolve to the trace's lengths and mean rate", "[trace_replay]") {
  // Six requests over 5 s: five gaps, 1 request/s; x2 rate halves every gap.
  const auto r = simulator::resolve_trace_classes(test::parse(trace_scenario()));
  const auto& c = r.workload.classes.at(0);
  CHECK(c.arrival.rate_per_s == Approx(1.0));
  CHECK(c.input_tokens.values == std::vector<int>{1100, 600, 1500, 300, 800, 520});
  CHECK(c.output_tokens.values == std::vector<int>{20, 10, 30, 5, 15, 8});
  CHECK(simulator::resolve_trace_classes(test::parse(trace_scenario({{"rate_scale", 2.0}})))
            .workload.classes.at(0)
            .arrival.rate_per_s == Approx(2.0));
  // A window keeps the arrivals in [1, 3) s: three requests, shifted to start at 0, two gaps over 1.5 s.
  const auto w = simulator::resolve_trace_classes(
      test::parse(trace_scenario({{"window_start_s", 1.0}, {"window_end_s", 3.0}})));
  CHECK(w.workload.classes.at(0).input_tokens.values == std::vector<int>{600, 1500, 300});
  CHECK(w.workload.classes.at(0).arrival.rate_per_s == Approx(2.0 / 1.5));
  // Mooncake's ids stand for 512-token blocks: another block size would give them a meaning they lack.
  auto blocks = trace_scenario();
  blocks["workload"]["prefix_block_tokens"] = 256;
  REQUIRE_THROWS_WITH(simulator::resolve_trace_classes(test::parse(blocks)),
                      Catch::Contains("prefix_block_tokens") && Catch::Contains("512"));
  REQUIRE_THROWS_WITH(simulator::resolve_trace_classes(test::parse(trace_scenario({{"window_start_s", 60.0}}))),
                      Catch::Contains("no request of the trace"));
}

TEST_CASE("a trace class replays its requests as recorded, block ids shared where the trace shares them",
          "[trace_replay]") {
  const auto s = test::parse(trace_scenario({{"rate_scale", 2.0}}));
  const auto reqs = simulator::generate_class_requests(s.workload.classes.at(0), 0, 6, 0.0, 1, 131072);
  REQUIRE(reqs.size() == 6);
  const double want_s[] = {0.0, 0.5, 1.0, 1.25, 2.0, 2.5};  // the recorded times at twice the rate
  for (int i = 0; i < 6; ++i) CHECK(reqs[i].arrival_s == Approx(want_s[i]));
  CHECK(reqs[2].input_tokens == 1500);
  CHECK(reqs[2].output_tokens == 30);
  // Full 512-token blocks only: 1100 tokens hold 2 ([7, 8]), 600 one ([7]), 300 none.
  CHECK(reqs[0].prefix_blocks.size() == 2);
  CHECK(reqs[1].prefix_blocks.size() == 1);
  CHECK(reqs[3].prefix_blocks.empty());
  CHECK(reqs[1].prefix_blocks[0] == reqs[0].prefix_blocks[0]);  // hash id 7 in both
  CHECK(reqs[2].prefix_blocks == reqs[0].prefix_blocks);          // [7, 8] in both
  CHECK(reqs[5].prefix_blocks[0] != reqs[0].prefix_blocks[0]);    // 15 is not 7
  REQUIRE_THROWS_WITH(simulator::generate_class_requests(s.workload.classes.at(0), 0, 7, 0.0, 1, 131072),
                      Catch::Contains("holds 6") && Catch::Contains("loops"));
  // Looped twice: twelve requests, the second copy one mean gap (0.5 s at x2) after the first ended.
  const auto looped = test::parse(trace_scenario({{"rate_scale", 2.0}, {"loops", 2}}));
  const auto twelve = simulator::generate_class_requests(looped.workload.classes.at(0), 0, 12, 0.0, 1, 131072);
  CHECK(twelve[6].arrival_s == Approx(3.0));
  CHECK(twelve[11].input_tokens == 520);
}

TEST_CASE("a replayed trace runs end to end: every request served, the recorded tokens counted",
          "[trace_replay]") {
  const auto report = simulator::simulate_in_child(test::parse(trace_scenario()));
  const auto& m = report["metrics"];
  INFO(m.dump().substr(0, 600));
  CHECK(m["requests_measured"] == 6);  // six requests: 10% warm-up and cool-down round down to none
  CHECK(m["requests_succeeded"] == 6);
  CHECK(m["prefix_cache"]["prompt_tokens"] == 1100 + 600 + 1500 + 300 + 800 + 520);
  CHECK(report["derived"]["arrival_rate_per_s"].get<double>() == Approx(1.0));
}
