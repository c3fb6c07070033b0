#pragma once
// One accelerator type and the server it comes in: datasheet figures only. What a kernel really
// achieves on it is a calibration profile's business (calibration/), not the hardware's.

#include <map>
#include <string>

namespace fleetcast::specs {

struct HardwareSpec {
  std::string name;
  std::string source;
  std::map<std::string, std::string> assumed;  // field path -> one-line reason

  std::string arch;                           // "sm_90", "sm_100", ...
  std::map<std::string, double> peak_tflops;  // dense, by compute class: "bf16", "fp8", "fp4"
  double hbm_gb = 0.0;                        // HBM per GPU as the datasheet gives it, GB
  double hbm_tb_per_s = 0.0;                  // HBM bandwidth per GPU, 1e12 bytes/s
  double nvlink_gb_per_s = 0.0;               // scale-up bandwidth per GPU, both directions together
  int scale_up_domain_gpus = 0;               // GPUs one NVLink domain connects
  // How the domain joins its GPUs: "switch" (NVSwitch, UnifiedBus: any GPU reaches any other at its whole
  // nvlink_gb_per_s), "mesh" (AMD Infinity Fabric: one link to each other GPU, a group of g of n uses g - 1 of its
  // n - 1) or "pcie" (no GPU fabric: each GPU's own PCIe link, switch-like, at PCIe's collective efficiency).
  std::string scale_up_topology = "switch";
  int gpus_per_node = 0;                // GPUs in one server (or one tray's worth for NVL72 racks)
  double nic_gbit_per_s = 0.0;          // scale-out NIC per GPU, line rate
  double host_link_gb_per_s = 0.0;      // GPU <-> host memory, one direction
  double host_memory_gb = 0.0;          // per node
  double power_w = 0.0;                 // board power at full load
  double price_usd_per_gpu_hour = 0.0;  // an on-demand reference price (REFERENCE.md section 6)
  // The device memory the runtime sees, GiB: CUDA's or HIP's total (torch.cuda.mem_get_info, and "GPU 0 has a total
  // capacity of 79.2 GiB" in an out-of-memory message), of which vLLM's gpu_memory_utilization and SGLang's
  // mem_fraction_static take their share. A datasheet's HBM "GB" are binary (H100: 80 GiB, of which CUDA reports
  // 79.2), so hbm_gb read as 1e9 bytes understates the memory by ~6%. 0: hbm_gb x 1e9 bytes.
  double device_memory_gib = 0.0;

  double peak_flops(const std::string& compute_class) const;  // throws if the class is absent
  bool supports(const std::string& compute_class) const { return peak_tflops.count(compute_class) > 0; }
  double hbm_bytes() const { return device_memory_gib > 0.0 ? device_memory_gib * 1073741824.0 : hbm_gb * 1e9; }
  double hbm_bytes_per_s() const { return hbm_tb_per_s * 1e12; }
  // One direction, per GPU, all its scale-up links together.
  double nvlink_bytes_per_s_one_way() const { return nvlink_gb_per_s * 1e9 / 2.0; }
  // One direction, per GPU, what a collective among `group` GPUs of one domain can use (group 2: a point-to-point
  // copy): all of it behind a switch, (group - 1) / (domain - 1) of it in a mesh.
  double scale_up_bytes_per_s_one_way(int group) const;
  double nic_bytes_per_s() const { return nic_gbit_per_s * 1e9 / 8.0; }
  bool operator==(const HardwareSpec&) const = default;
};

}  // namespace fleetcast::specs
