#include "fleetcast/calibration/quality_report.hpp"

#include <cstdio>

namespace fleetcast::calibration {

std::string network_factors_table(const Profile& p) {
  if (p.network_factors.empty()) {
    return "network factors: none (simulated links run at the datasheet figures x the profile's efficiencies)\n";
  }
  std::string t;
  char line[512];
  for (const auto& f : p.network_factors) {
    std::snprintf(line, sizeof line,
                  "network factors %s: route %.3g s, %.4g GB/s; %d points, %.4g..%.4g bytes; APE median %.1f%%, max "
                  "%.1f%%\n",
                  f.transport.c_str(), f.route_latency_s, f.route_bytes_per_s / 1e9, f.points, f.min_bytes, f.max_bytes,
                  100.0 * f.median_ape, 100.0 * f.max_ape);
    t += line;
    std::snprintf(line, sizeof line, "  %14s %14s %16s\n", "from_bytes", "latency_factor", "bandwidth_factor");
    t += line;
    for (const auto& b : f.bands) {
      std::snprintf(line, sizeof line, "  %14.6g %14.4g %16.4g\n", b.min_bytes, b.latency_factor, b.bandwidth_factor);
      t += line;
    }
  }
  return t;
}

QualityReport quality_report(const Profile& p, double threshold) {
  QualityReport r;
  char line[512];
  std::snprintf(line, sizeof line, "profile %s (%s), %zu ops; APE = |predicted - measured| / measured\n",
                p.hardware.c_str(), p.kind.c_str(), p.quality.size());
  r.table += line;
  std::snprintf(line, sizeof line, "%-24s %-6s %6s %9s %9s %9s %9s  %s\n", "op", "dtype", "points", "loo_med",
                "loo_max", "held_med", "held_max", "range");
  r.table += line;
  for (const auto& q : p.quality) {
    std::string range;
    for (const auto& [dim, mm] : q.range) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%s %g..%g", range.empty() ? "" : ", ", dim.c_str(), mm.first, mm.second);
      range += buf;
    }
    const bool loo = q.points >= 2, held = q.held_out_points > 0;
    auto pct = [](bool have, double x) {
      char b[16];
      if (!have) return std::string("n/a");
      std::snprintf(b, sizeof b, "%.1f%%", 100.0 * x);
      return std::string(b);
    };
    const bool flag = (loo && q.loo_median_ape > threshold) || (held && q.held_out_median_ape > threshold);
    std::snprintf(line, sizeof line, "%-24s %-6s %6d %9s %9s %9s %9s  %s%s\n", q.op.c_str(), q.dtype.c_str(), q.points,
                  pct(loo, q.loo_median_ape).c_str(), pct(loo, q.loo_max_ape).c_str(),
                  pct(held, q.held_out_median_ape).c_str(), pct(held, q.held_out_max_ape).c_str(),
                  range.empty() ? "one shape" : range.c_str(), flag ? "  FLAGGED" : "");
    r.table += line;
    if (flag) r.flagged.push_back(q.op + " " + q.dtype);
  }
  std::snprintf(line, sizeof line, "flagged (median APE above %.1f%%): %zu\n", 100.0 * threshold, r.flagged.size());
  r.table += line;
  for (const auto& f : r.flagged) r.table += "  " + f + "\n";
  r.table += network_factors_table(p);
  return r;
}

}  // namespace fleetcast::calibration
