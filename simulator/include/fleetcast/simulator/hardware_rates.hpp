#pragma once
// Achievable rates of one GPU: datasheet peaks times the profile's efficiencies, looked up once.

#include <algorithm>
#include <array>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/hardware.hpp"
#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {

class RateTable {
 public:
  RateTable(const specs::HardwareSpec& hw, const calibration::Profile& profile);

  // Tensor-core FLOP/s for GEMMs with weights in `p`. FP4 weights on hardware without FP4 tensor cores
  // (Hopper) are dequantised to BF16 in the kernel (weight-only) and run at the BF16 rate; FP8 weights without
  // FP8 tensor cores likewise.
  double matmul_flops(specs::Precision p) const;
  // A GEMM of `weights` by activations in `inputs`: an MMA runs at the rate of its wider input (gemm_inputs.hpp).
  double gemm_flops(specs::Precision weights, specs::Precision inputs) const {
    // INT4 weights against FP8 activations (TensorRT-LLM's W4AFP8 MoE): the weights are widened to FP8 in the tile
    // and multiplied at the FP8 rate; INT4 against BF16 is weight-only at the BF16 rate.
    if (weights == specs::Precision::int4 && inputs == specs::Precision::fp8) return matmul_flops(inputs);
    return std::min(matmul_flops(weights), matmul_flops(inputs));
  }
  double attention_flops() const { return attention_flops_; }
  double vector_flops() const { return vector_flops_; }
  double hbm_bytes_per_s() const { return hbm_bytes_per_s_; }
  // What the routed experts' kernels stream their weights at (Profile::expert_memory_efficiency).
  double expert_hbm_bytes_per_s() const { return expert_hbm_bytes_per_s_; }
  // What a collective among `group` GPUs of one scale-up domain gets
  // (specs::HardwareSpec::scale_up_bytes_per_s_one_way).
  double nvlink_bus_bytes_per_s(int group) const {
    return scale_up_.scale_up_bytes_per_s_one_way(group) * nvlink_efficiency_;
  }
  double nic_bytes_per_s() const { return nic_bytes_per_s_; }
  double host_link_bytes_per_s() const { return host_link_bytes_per_s_; }
  // The routed experts' grouped GEMMs, their weights in `experts`, multiply at this share of the matmul rates
  // above (Profile::expert_kernel_efficiency).
  double expert_kernel_efficiency(specs::Precision experts) const;

 private:
  double bf16_ = 0.0, fp8_ = 0.0, fp4_ = 0.0;
  double attention_flops_ = 0.0, vector_flops_ = 0.0;
  double hbm_bytes_per_s_ = 0.0, expert_hbm_bytes_per_s_ = 0.0, nic_bytes_per_s_ = 0.0;
  specs::HardwareSpec scale_up_;  // the hardware, for its scale-up domain's bandwidth by group
  double nvlink_efficiency_ = 0.0;
  double host_link_bytes_per_s_ = 0.0;
  std::array<double, specs::kPrecisionCount> expert_kernel_efficiency_{};  // by specs::Precision, looked up once
};

}  // namespace fleetcast::simulator
