#include "fleetcast/engine/summary.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "fleetcast/engine/stats.hpp"

namespace fleetcast::engine {
namespace {

// What a group's share of peak is held against.
enum class Peak { flops, hbm, host_link, nvlink };

struct Group {
  std::string label;  // the op class, or a finer row where one class holds ops with different bounds
  Peak peak;
  std::string dtype;
  std::vector<double> gflops, gb_per_s;
};

// Prefill attention is bound by compute, unlike decode attention; host-device copies by the host link,
// peer copies and collectives (bus bandwidth) by NVLink, one direction.
std::pair<std::string, Peak> row_of(const OpInfo& op) {
  if (op.name == "attention_prefill") return {"prefill", Peak::flops};
  if (op.name == "memcpy_h2d" || op.name == "memcpy_d2h") return {"host-link", Peak::host_link};
  if (op.name == "memcpy_p2p") return {"peer", Peak::nvlink};
  if (op.op_class == OpClass::collective) return {"collective", Peak::nvlink};
  return {std::string(op_class_name(op.op_class)), op.op_class == OpClass::gemm ? Peak::flops : Peak::hbm};
}

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

// The datasheet peak a group is held against: tensor-core FLOPs for GEMMs and prefill attention, HBM
// bandwidth for decode attention, norms, sampling and device copies, the host link for host-device
// copies, NVLink one way for peer copies and collectives' bus bandwidth. 0 when the datasheet lacks it.
double peak_for(const Group& g, const specs::HardwareSpec& hw, bool& is_compute) {
  is_compute = g.peak == Peak::flops;
  if (is_compute) {
    std::string cls = g.dtype == "fp32" ? "" : g.dtype;  // no dense fp32 tensor-core peak on file
    if (cls == "fp8_block") cls = "fp8";
    return hw.supports(cls) ? hw.peak_flops(cls) / 1e9 : 0.0;  // GFLOPS
  }
  if (g.peak == Peak::host_link) return hw.host_link_gb_per_s;
  if (g.peak == Peak::nvlink) return hw.nvlink_bytes_per_s_one_way() / 1e9;
  return hw.hbm_tb_per_s * 1e3;  // GB/s
}

}  // namespace

std::string summary_text(const RunOutcome& outcome, const std::optional<specs::HardwareSpec>& datasheet) {
  const auto& h = outcome.trace.header;
  std::vector<Group> groups;
  for (const auto& m : outcome.trace.measurements) {
    const OpInfo* op = find_op(m.op);
    if (op == nullptr) continue;
    const auto [label, peak] = row_of(*op);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.label == label && g.dtype == m.dtype; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{label, peak, m.dtype, {}, {}});
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
    s += line("  %-12s %-5s %5zu %13.1f %13.1f %12.1f %12.1f", g.label.c_str(), g.dtype.c_str(), g.gflops.size(),
              median_of(g.gflops), best_of(g.gflops), median_of(g.gb_per_s), best_of(g.gb_per_s)) +
         share + "\n";
  }
  if (std::any_of(groups.begin(), groups.end(), [](const Group& g) { return g.label == "collective"; }))
    s += "  collectives: GB/s is nccl-tests' bus bandwidth (algorithm bandwidth x 2(n-1)/n for all_reduce, "
         "(n-1)/n for all_gather, reduce_scatter, all_to_all, 1 for send_recv)\n";
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
