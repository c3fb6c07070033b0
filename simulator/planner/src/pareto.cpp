#include "fleetcast/planner/pareto.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fleetcast::planner {
namespace {

bool finite(const ChartPoint& p) { return std::isfinite(p.x) && std::isfinite(p.y); }

// a at least as good as b on both axes and strictly better on one.
bool dominates(const ChartPoint& a, const ChartPoint& b, Better better) {
  const double ax = better.higher_x ? a.x : -a.x, bx = better.higher_x ? b.x : -b.x;
  const double ay = better.higher_y ? a.y : -a.y, by = better.higher_y ? b.y : -b.y;
  return ax >= bx && ay >= by && (ax > bx || ay > by);
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Tick label: 1,500 as "1.5k", 250 as "250", 0.5 as "0.5".
std::string tick_text(double v) {
  char buf[32];
  if (std::abs(v) >= 1000.0) {
    std::snprintf(buf, sizeof buf, "%gk", v / 1000.0);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about five ticks over [lo, hi].
double tick_step(double lo, double hi) {
  const double raw = (hi - lo) / 5.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10.0 * mag;
}

struct Range {
  double lo, hi;
};

// From 0 (throughput and latency charts read from the origin) to a rounded-up maximum.
Range axis_range(double max) {
  if (!(max > 0.0)) max = 1.0;
  const double step = tick_step(0.0, max);
  return {0.0, std::ceil(max / step) * step};
}

}  // namespace

std::vector<bool> pareto_frontier(const std::vector<ChartPoint>& points, Better better) {
  std::vector<bool> frontier(points.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!finite(points[i])) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) {
      dominated = j != i && finite(points[j]) && dominates(points[j], points[i], better);
    }
    frontier[i] = !dominated;
  }
  return frontier;
}

std::string pareto_svg(const std::vector<ChartPoint>& points, const std::vector<bool>& frontier,
                       const ChartText& text) {
  constexpr double kWidth = 720, kHeight = 480, kLeft = 80, kRight = 30, kTop = 50, kBottom = 60;
  double max_x = 0.0, max_y = 0.0;
  for (const ChartPoint& p : points) {
    if (!finite(p)) continue;
    max_x = std::max(max_x, p.x);
    max_y = std::max(max_y, p.y);
  }
  const Range rx = axis_range(max_x), ry = axis_range(max_y);
  const auto sx = [&](double x) { return kLeft + (x - rx.lo) / (rx.hi - rx.lo) * (kWidth - kLeft - kRight); };
  const auto sy = [&](double y) {
    return kHeight - kBottom - (y - ry.lo) / (ry.hi - ry.lo) * (kHeight - kTop - kBottom);
  };

  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) +
                  "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
                  "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"" + num(kWidth / 2) + "\" y=\"28\" text-anchor=\"middle\" font-size=\"15\">" + escape(text.title) +
       "</text>\n";
  // Axes, ticks and grid lines.
  s += "<g stroke=\"#999\" fill=\"none\"><path d=\"M" + num(kLeft) + " " + num(kTop) + " V" + num(kHeight - kBottom) +
       " H" + num(kWidth - kRight) + "\"/></g>\n";
  const double step_x = tick_step(rx.lo, rx.hi), step_y = tick_step(ry.lo, ry.hi);
  for (double v = rx.lo; v <= rx.hi + 1e-9 * step_x; v += step_x) {
    s += "<line x1=\"" + num(sx(v)) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(sx(v)) + "\" y2=\"" +
         num(kHeight - kBottom) + "\" stroke=\"#eee\"/><text x=\"" + num(sx(v)) + "\" y=\"" +
         num(kHeight - kBottom + 18) + "\" text-anchor=\"middle\">" + tick_text(v) + "</text>\n";
  }
  for (double v = ry.lo; v <= ry.hi + 1e-9 * step_y; v += step_y) {
    s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(sy(v)) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" +
         num(sy(v)) + "\" stroke=\"#eee\"/><text x=\"" + num(kLeft - 8) + "\" y=\"" + num(sy(v) + 4) +
         "\" text-anchor=\"end\">" + tick_text(v) + "</text>\n";
  }
  s += "<text x=\"" + num((kLeft + kWidth - kRight) / 2) + "\" y=\"" + num(kHeight - 18) +
       "\" text-anchor=\"middle\">" + escape(text.x_label) + "</text>\n";
  s += "<text transform=\"translate(20 " + num((kTop + kHeight - kBottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + escape(text.y_label) + "</text>\n";
  // The frontier, joined in x order.
  std::vector<const ChartPoint*> front;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (i < frontier.size() && frontier[i]) front.push_back(&points[i]);
  std::stable_sort(front.begin(), front.end(), [](const ChartPoint* a, const ChartPoint* b) { return a->x < b->x; });
  if (front.size() > 1) {
    s += "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"";
    for (std::size_t i = 0; i < front.size(); ++i)
      s += (i ? " " : "") + num(sx(front[i]->x)) + "," + num(sy(front[i]->y));
    s += "\"/>\n";
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ChartPoint& p = points[i];
    if (!finite(p)) continue;
    const bool on = i < frontier.size() && frontier[i];
    s += "<circle cx=\"" + num(sx(p.x)) + "\" cy=\"" + num(sy(p.y)) + "\" r=\"4\" stroke=\"#c0392b\" fill=\"" +
         (on ? "#c0392b" : "white") + "\"" + (on ? " class=\"frontier\"" : "") + "/><text x=\"" + num(sx(p.x) + 6) +
         "\" y=\"" + num(sy(p.y) - 6) + "\">" + escape(p.label) + "</text>\n";
  }
  s += "<text x=\"" + num(kWidth - kRight) + "\" y=\"" + num(kTop - 8) +
       "\" text-anchor=\"end\" fill=\"#c0392b\">filled: Pareto frontier</text>\n</svg>\n";
  return s;
}

}  // namespace fleetcast::planner
