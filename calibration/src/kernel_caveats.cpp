#include "fleetcast/calibration/kernel_caveats.hpp"

#include <algorithm>
#include <cstdio>

namespace fleetcast::calibration {
namespace {

// Flags `value` above `ceiling` or below kFarBelowKernelShare x `kernel`. A hair's tolerance above the ceiling so
// that a profile written out and read back at the ceiling itself is not flagged.
void check(std::vector<KernelCaveat>& out, const std::string& field, double value, double kernel, double ceiling) {
  if (value <= 0.0 || kernel <= 0.0) return;  // not set: nothing to hold it against
  if (value > ceiling * (1.0 + 1e-6)) {
    out.push_back({field, value, ceiling, true});
  } else if (value < kFarBelowKernelShare * kernel) {
    out.push_back({field, value, kernel, false});
  }
}

}  // namespace

std::vector<KernelCaveat> kernel_caveats(const Profile& profile, const Profile& datasheet) {
  std::vector<KernelCaveat> out;
  for (const auto& [cls, eff] : profile.matmul_efficiency) {
    // The datasheet's matmul share is the best MAMF measured for the class: its own ceiling.
    const auto best = datasheet.matmul_efficiency.find(cls);
    if (best != datasheet.matmul_efficiency.end())
      check(out, "matmul_efficiency." + cls, eff, best->second, best->second);
  }
  check(out, "attention_compute_efficiency", profile.attention_compute_efficiency,
        datasheet.attention_compute_efficiency,
        std::max(kMaxAttentionEfficiency, datasheet.attention_compute_efficiency));
  check(out, "memory_efficiency", profile.memory_efficiency, datasheet.memory_efficiency,
        std::max(kMaxMemoryEfficiency, datasheet.memory_efficiency));
  // NCCL's NVLS all-reduce reaches about the one-way NVLink bandwidth (480 of 450 GB/s on 8 x H100, REFERENCE.md
  // s4): no efficiency above 1 is flagged, since the profile caps it there anyway.
  check(out, "nvlink_efficiency", profile.nvlink_efficiency, datasheet.nvlink_efficiency,
        std::max(1.0, datasheet.nvlink_efficiency));
  // The experts' grouped GEMMs against a dense GEMM's rate (1 = the same): never above it, and under half of it
  // is a kernel the fit does not name.
  for (const auto& [format, eff] : profile.expert_kernel_efficiency)
    check(out, "expert_kernel_efficiency." + format, eff, 1.0, 1.0);
  // Their weight streaming against a dense GEMM's, likewise.
  check(out, "expert_memory_efficiency", profile.expert_memory_efficiency, 1.0, 1.0);
  return out;
}

std::string describe(const KernelCaveat& c) {
  char buf[160];
  if (c.above) {
    std::snprintf(buf, sizeof buf, "%s %.2f above the best kernel-level %.2f", c.field.c_str(), c.value, c.kernel);
  } else {
    std::snprintf(buf, sizeof buf, "%s %.2f below half of the kernel-level %.2f", c.field.c_str(), c.value, c.kernel);
  }
  return buf;
}

nlohmann::json to_json(const std::vector<KernelCaveat>& caveats) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : caveats) {
    out.push_back({{"field", c.field}, {"value", c.value}, {"kernel_level", c.kernel}, {"above", c.above}});
  }
  return out;
}

std::string short_list(const nlohmann::json& caveats) {
  std::string text;
  if (!caveats.is_array()) return text;
  for (const auto& k : caveats) {
    if (!k.is_object() || !k.contains("field") || !k["field"].is_string() || !k.contains("value") ||
        !k["value"].is_number() || !k.contains("kernel_level") || !k["kernel_level"].is_number() ||
        !k.contains("above") || !k["above"].is_boolean())
      continue;
    char buf[160];
    std::snprintf(buf, sizeof buf, k["above"].get<bool>() ? "%s %.2f > %.2f" : "%s %.2f < half of %.2f",
                  k["field"].get<std::string>().c_str(), k["value"].get<double>(), k["kernel_level"].get<double>());
    text += (text.empty() ? "" : ", ") + std::string(buf);
  }
  return text;
}

}  // namespace fleetcast::calibration
