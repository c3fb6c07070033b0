#include "fleetcast/engine/summary.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "fleetcast/engine/stats.hpp"

namespace fleetcast::engine {
namespace {

struct Group {
  OpClass op_class;
  std::string dtype;
  std::vector<double> gflops, gb_per_s;
};

std::string line(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return percentile(v, 0.5);
}

double best_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

// The datasheet peak a group is held against: tensor-core FLOPs for GEMMs, HBM bandwidth for the rest
// (decode attention, norms, sampling and copies are bound by memory). 0 when the datasheet lacks it.
double peak_for(const Group& g, const specs::HardwareSpec& hw, bool& is_compute) {
  is_compute = g.op_class == OpClass::gemm;
  if (is_compute) {
    const std::string cls = g.dtype == "fp32" ? "" : g.dtype;  // no dense fp32 tensor-core peak on file
    return hw.supports(cls) ? hw.peak_flops(cls) / 1e9 : 0.0;  // GFLOPS
  }
  return hw.hbm_tb_per_s * 1e3;  // GB/s
}

}  // namespace

std::string summary_text(const RunOutcome& outcome, const std::optional<specs::HardwareSpec>& datasheet) {
  const auto& h = outcome.trace.header;
  std::vector<Group> groups;
  for (const auto& m : outcome.trace.measurements) {
    const OpInfo* op = find_op(m.op);
    if (op == nullptr) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.op_class == op->op_class && g.dtype == m.dtype; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{op->op_class, m.dtype, {}, {}});
    it->gflops.push_back(m.achieved_tflops * 1e3);
    it->gb_per_s.push_back(m.achieved_gb_per_s);
  }
  std::string s = "summary: " + h.backend + " backend on " + h.device;
  if (h.backend == "cpu") s += " (" + std::to_string(h.cpu_cores) + (h.cpu_cores == 1 ? " thread)" : " threads)");
  s += line(": %zu cases measured, %zu skipped, %zu small-shape checks passed\n", outcome.trace.measurements.size(),
            outcome.skipped.size(), outcome.small_checks.size());
  if (datasheet) s += "  share of peak against the " + datasheet->name + " datasheet\n";
  s += line("  %-12s %-5s %5s %13s %13s %12s %12s%s\n", "op class", "dtype", "cases", "median GFLOPS", "best GFLOPS",
            "median GB/s", "best GB/s", datasheet ? "  share of peak (median, best)" : "");
  for (const auto& g : groups) {
    std::string share;
    if (datasheet) {
      bool compute = false;
      const double peak = peak_for(g, *datasheet, compute);
      const auto& v = compute ? g.gflops : g.gb_per_s;
      share = peak > 0.0 ? line("  %5.1f%% %5.1f%% of %.0f %s", 100.0 * median_of(v) / peak, 100.0 * best_of(v) / peak,
                                compute ? peak / 1e3 : peak, compute ? "TFLOPS" : "GB/s")
                         : "  (no datasheet peak)";
    }
    s += line("  %-12s %-5s %5zu %13.1f %13.1f %12.1f %12.1f", std::string(op_class_name(g.op_class)).c_str(),
              g.dtype.c_str(), g.gflops.size(), median_of(g.gflops), best_of(g.gflops), median_of(g.gb_per_s),
              best_of(g.gb_per_s)) +
         share + "\n";
  }
  if (!outcome.skipped.empty()) {
    s += "  skipped:\n";
    std::vector<std::string> reasons;
    for (const auto& sk : outcome.skipped) {
      const std::string r = "    " + sk.op_case.op + " " + sk.op_case.dtype + ": " + sk.reason + "\n";
      if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
    }
    for (const auto& r : reasons) s += r;
  }
  return s;
}

}  // namespace fleetcast::engine
