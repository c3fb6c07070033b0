#pragma once
// The Pareto frontier of a sweep's points on two axes, and the chart that shows it as SVG.

#include <string>
#include <vector>

namespace fleetcast::planner {

struct ChartPoint {
  double x = 0.0;
  double y = 0.0;
  std::string label;  // shown beside the point ("64" requests per rank)
};

// Which way each axis is better: decode charts want both up (tokens/s per user, tokens/s per GPU); prefill wants
// x (step latency) down and y (tokens/s per GPU) up.
struct Better {
  bool higher_x = true;
  bool higher_y = true;
};

// frontier[i]: no other point is at least as good on both axes and strictly better on one. Points with a
// non-finite coordinate are never on the frontier (and never dominate).
std::vector<bool> pareto_frontier(const std::vector<ChartPoint>& points, Better better);

struct ChartText {
  std::string title;
  std::string x_label;
  std::string y_label;
};

// A self-contained SVG (no fonts or scripts fetched): axes with ticks, every point as a circle with its label,
// the frontier points filled and joined by a line in x order. Non-finite points are left out. Deterministic:
// the same points give the same bytes.
std::string pareto_svg(const std::vector<ChartPoint>& points, const std::vector<bool>& frontier, const ChartText& text);

}  // namespace fleetcast::planner
