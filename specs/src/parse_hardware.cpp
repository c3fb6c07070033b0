// JSON -> HardwareSpec.

#include "fleetcast/specs/load.hpp"
#include "json_reader.hpp"

namespace fleetcast::specs {

using detail::JsonReader;

namespace {

std::map<std::string, double> parse_peak_tflops(JsonReader r) {
  std::map<std::string, double> out;
  out["bf16"] = r.require_positive("bf16");
  // No FP8 tensor cores before Hopper and Ada (A100): FP8 weights then run weight-only at the BF16 rate.
  if (r.has("fp8")) out["fp8"] = r.require_positive("fp8");
  if (r.has("fp4")) out["fp4"] = r.require_positive("fp4");
  r.check(!out.count("fp4") || out.count("fp8"), "fp4", "a part with FP4 tensor cores has FP8 ones: give fp8 too");
  r.finish();
  return out;
}

}  // namespace

HardwareSpec parse_hardware(const nlohmann::json& j, const std::string& file, const std::string& prefix) {
  JsonReader r(j, file, prefix);
  HardwareSpec h;
  h.name = r.require<std::string>("name");
  r.check(!h.name.empty(), "name", "must not be empty");
  h.source = r.require<std::string>("source");
  h.assumed = r.string_map("assumed");
  h.arch = r.require<std::string>("arch");
  r.check(!h.arch.empty(), "arch", "must not be empty (e.g. \"sm_90\")");
  h.peak_tflops = parse_peak_tflops(r.object("peak_tflops"));
  h.hbm_gb = r.require_positive("hbm_gb");
  h.device_memory_gib = r.optional<double>("device_memory_gib", 0.0);
  r.check(h.device_memory_gib >= 0.0 && h.device_memory_gib <= h.hbm_gb, "device_memory_gib",
          "must be in (0, hbm_gb = " + nlohmann::json(h.hbm_gb).dump() +
              "] GiB (what CUDA reports of the HBM), or 0 (absent)");
  h.hbm_tb_per_s = r.require_positive("hbm_tb_per_s");
  h.nvlink_gb_per_s = r.require_positive("nvlink_gb_per_s");
  h.scale_up_domain_gpus = r.require_at_least("scale_up_domain_gpus", 1);
  h.scale_up_topology = r.optional<std::string>("scale_up_topology", "switch");
  r.check(h.scale_up_topology == "switch" || h.scale_up_topology == "mesh" || h.scale_up_topology == "pcie",
          "scale_up_topology",
          "must be \"switch\" (NVSwitch-like: any GPU reaches any other at full bandwidth), \"mesh\" (a direct "
          "link to each other GPU of the domain) or \"pcie\" (no GPU interconnect: each GPU's PCIe link to a switch "
          "or the CPU)");
  h.gpus_per_node = r.require_at_least("gpus_per_node", 1);
  r.check(h.scale_up_domain_gpus % h.gpus_per_node == 0 || h.gpus_per_node % h.scale_up_domain_gpus == 0,
          "gpus_per_node",
          "must divide scale_up_domain_gpus (" + std::to_string(h.scale_up_domain_gpus) + ") or be a multiple of it");
  h.nic_gbit_per_s = r.require_positive("nic_gbit_per_s");
  h.host_link_gb_per_s = r.require_positive("host_link_gb_per_s");
  h.host_memory_gb = r.require_positive("host_memory_gb");
  h.power_w = r.require_positive("power_w");
  h.price_usd_per_gpu_hour = r.require_positive("price_usd_per_gpu_hour");
  r.finish();
  return h;
}

}  // namespace fleetcast::specs
