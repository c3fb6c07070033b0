// Pareto frontier of hand-made point sets, and the SVG chart that marks it.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/planner/pareto.hpp"

using namespace fleetcast::planner;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("decode: both axes up; a point beaten on both is off the frontier", "[planner]") {
  // (user tok/s, GPU tok/s): A (300, 2600), B (250, 15000), C (100, 26000), D (240, 14000) is beaten by B on both,
  // E (100, 20000) by C on GPU tok/s at equal user speed.
  const std::vector<ChartPoint> p = {
      {300, 2600, "A"}, {250, 15000, "B"}, {100, 26000, "C"}, {240, 14000, "D"}, {100, 20000, "E"}};
  CHECK(pareto_frontier(p, {true, true}) == std::vector<bool>{true, true, true, false, false});
}

TEST_CASE("prefill: latency down, throughput up", "[planner]") {
  // (ms per step, GPU tok/s): 68 ms / 60k, 200 ms / 81k, 730 ms / 89k are a frontier; 250 ms / 70k is beaten
  // by 200 ms / 81k (faster and more), 68 ms / 60k twice is kept once each (neither strictly better).
  const std::vector<ChartPoint> p = {
      {68, 60000, ""}, {200, 81000, ""}, {730, 89000, ""}, {250, 70000, ""}, {68, 60000, ""}};
  CHECK(pareto_frontier(p, {false, true}) == std::vector<bool>{true, true, true, false, true});
  // With higher latency called better the order flips: the slowest is best on x, and 89k is the best y.
  CHECK(pareto_frontier(p, {true, true}) == std::vector<bool>{false, false, true, false, false});
}

TEST_CASE("a failed point (NaN) is never on the frontier and never beats one", "[planner]") {
  const std::vector<ChartPoint> p = {{NAN, 1e9, "failed"}, {1, 1, "ok"}};
  CHECK(pareto_frontier(p, {true, true}) == std::vector<bool>{false, true});
}

TEST_CASE("the SVG draws every finite point and fills the frontier", "[planner]") {
  const std::vector<ChartPoint> p = {{300, 2600, "8"}, {250, 15000, "64"}, {240, 14000, "<x>"}, {NAN, 5, "bad"}};
  const auto f = pareto_frontier(p, {true, true});
  const std::string svg = pareto_svg(p, f, {"decode & co", "tokens/s per user", "output tokens/s per GPU"});
  CHECK(svg.rfind("<svg ", 0) == 0);
  CHECK(count(svg, "<circle") == 3);
  CHECK(count(svg, "class=\"frontier\"") == 2);
  CHECK(count(svg, "<polyline") == 1);
  // Text is escaped, so the file stays well-formed XML.
  CHECK(svg.find("decode &amp; co") != std::string::npos);
  CHECK(svg.find("&lt;x&gt;") != std::string::npos);
  CHECK(svg == pareto_svg(p, f, {"decode & co", "tokens/s per user", "output tokens/s per GPU"}));
}
