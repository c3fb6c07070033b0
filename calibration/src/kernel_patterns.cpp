// The default kernel-name table. Order matters: the first match wins, so the specific classes (collectives,
// attention, MoE) come before the GEMM patterns their kernels' names may also contain (a fused MoE kernel
// runs grouped GEMMs; FlashAttention's kernels name no gemm, but cutlass-based FMHA ones do).
#include "fleetcast/calibration/kernel_import.hpp"

namespace fleetcast::calibration {

std::vector<KernelPattern> default_kernel_patterns() {
  return {
      {"collective", "nccl"},                                  // ncclDevKernel_AllReduce_Sum_bf16_RING_LL, ...
      {"attention", "flash|fmha|mla|attention|attn"},          // flash_fwd_splitkv_kernel, FlashMLA, paged_attention
      {"moe", "moe|expert|fused_moe"},                         // fused_moe_kernel, moe_align_block_size
      {"gemm", "gemm|cutlass|sm90_xmma|nvjet|cublas|matmul"},  // cuBLASLt nvjet_*, sm90_xmma_gemm_*, cutlass::
      {"elementwise", "rms|norm|silu|rope|rotary|act_and_mul|elementwise|vectorized"},
      {"memcpy", "^\\[CUDA mem"},  // nsys's copy and memset rows
  };
}

}  // namespace fleetcast::calibration
