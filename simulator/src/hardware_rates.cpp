#include "fleetcast/simulator/hardware_rates.hpp"

namespace fleetcast::simulator {

RateTable::RateTable(const specs::HardwareSpec& hw, const calibration::Profile& profile) : scale_up_(hw) {
  bf16_ = hw.peak_flops("bf16") * profile.matmul_efficiency_for("bf16");
  fp8_ = hw.supports("fp8") ? hw.peak_flops("fp8") * profile.matmul_efficiency_for("fp8") : bf16_;
  // Without FP4 tensor cores (Hopper) a 4-bit weight GEMM is weight-only: the kernels (vLLM's and SGLang's
  // Marlin and triton matmul_ogs MXFP4 paths, TensorRT-LLM's triton MoE backend) dequantise the weights to the
  // activations' BF16 inside the tile and multiply at the BF16 rate; only the weight bytes stay 4-bit.
  fp4_ = hw.supports("fp4") ? hw.peak_flops("fp4") * profile.matmul_efficiency_for("fp4") : bf16_;
  // Non-tensor-core FP32 work runs at roughly 1/16 of the dense BF16 tensor rate on Hopper and Blackwell
  // (H100: 67 vs 989 TFLOPS).
  vector_flops_ = hw.peak_flops("bf16") / 16.0;
  attention_flops_ = hw.peak_flops("bf16") * profile.attention_compute_efficiency;
  hbm_bytes_per_s_ = hw.hbm_bytes_per_s() * profile.memory_efficiency;
  expert_hbm_bytes_per_s_ = hbm_bytes_per_s_ * profile.expert_memory_efficiency;
  nvlink_efficiency_ = profile.nvlink_efficiency;
  nic_bytes_per_s_ = hw.nic_bytes_per_s() * profile.nic_efficiency;
  // PCIe and C2C reach about the same share of line rate as a NIC does.
  host_link_bytes_per_s_ = hw.host_link_gb_per_s * 1e9 * profile.nic_efficiency;
  for (int i = 0; i < specs::kPrecisionCount; ++i) {
    const auto format = static_cast<specs::Precision>(i);
    expert_kernel_efficiency_[static_cast<std::size_t>(i)] =
        profile.expert_kernel_efficiency_for(std::string(specs::to_string(format)));
  }
}

double RateTable::expert_kernel_efficiency(specs::Precision experts) const {
  return expert_kernel_efficiency_[static_cast<std::size_t>(experts)];
}

double RateTable::matmul_flops(specs::Precision p) const {
  switch (p) {
    case specs::Precision::fp32:
      return vector_flops_;  // no tensor cores for FP32 GEMMs
    case specs::Precision::bf16:
    case specs::Precision::fp16:
    case specs::Precision::int4:
      return bf16_;  // weight-only: dequantised to BF16 in the tile
    case specs::Precision::fp8:
      return fp8_;
    case specs::Precision::fp4:
    case specs::Precision::nvfp4:
      return fp4_;
  }
  return bf16_;
}

}  // namespace fleetcast::simulator
