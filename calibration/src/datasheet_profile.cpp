#include <stdexcept>
#include <string>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/vendor.hpp"
#include "profile_v2_json.hpp"

namespace fleetcast::calibration {
namespace {

struct MatmulFigures {
  double bf16;
  double fp8;
  const char* source;
};

// stas00/ml-engineering MAMF tables as quoted in REFERENCE.md section 4 (best achieved matmul / peak).
MatmulFigures matmul_figures(const std::string& arch, const std::string& name) {
  if (name == "h100") return {0.80, 0.71, "MAMF: H100 BF16 80%, FP8 71% (REFERENCE.md s4)"};
  if (name == "h200") return {0.80, 0.73, "MAMF: H200 FP8 73%; BF16 from H100 (same sm_90 die) (REFERENCE.md s4)"};
  if (name == "b200") return {0.78, 0.76, "MAMF: B200 BF16 78%, FP8 76% (REFERENCE.md s4)"};
  if (name == "gb200") return {0.73, 0.72, "MAMF: GB200 BF16 73%, FP8 72% (REFERENCE.md s4)"};
  if (name == "b300") return {0.79, 0.76, "MAMF: B300 BF16 79%; FP8 from B200 (REFERENCE.md s4)"};
  if (name == "gb300") return {0.73, 0.72, "MAMF: no GB300 figure; GB200's taken (REFERENCE.md s4)"};
  // Parts REFERENCE.md does not list: the same tables (stas00/ml-engineering compute/accelerator/README.md) or a
  // public sweep. A100 has no FP8 tensor cores: its fp8 entry is never used (FP8 weights run at the BF16 rate).
  if (name == "a100") return {0.87, 0.87, "MAMF: A100 SXM BF16 271.2 of 312 TFLOPS (stas00/ml-engineering); no FP8"};
  if (name == "h800") return {0.80, 0.71, "MAMF: H100 figures (the same sm_90 die; H800 cuts NVLink, not compute)"};
  if (name == "l40s") {
    return {
        0.74, 0.65,
        "L40S BF16 269 of 362 TFLOPS, a square-matmul sweep (zzc0721/torch-performance-test-data); FP8 assumed 65%"};
  }
  // RTX PRO 6000 (sm_120) has no wgmma or tcgen05: its GEMMs run warp-level mma (cuBLAS picks a cutlass_80 kernel).
  // The one public sweep ran a Max-Q card (300 W); the Server Edition's share of its own peak is taken as the same.
  if (name == "rtx6000pro") {
    return {0.51, 0.62,
            "RTX PRO 6000 Max-Q at 8192^3: cuBLAS FP16 229 TFLOPS (51% of peak), cuBLASLt FP8 556 (62%) "
            "(waynehacking8/blackwell-tensorcore-kernels); the Server Edition's shares assumed the same"};
  }
  // AMD Instinct: stas00's BF16 MAMF over AMD's dense peak (MI355X's row divides by MI350X's 2,300; AMD's MI355X
  // peak is 2,500). The table has no FP8 figure for an AMD part: FP8 is taken at BF16's share of its own peak.
  if (name == "mi300x") return {0.51, 0.51, "MAMF: MI300X BF16 668.4 of 1307 TFLOPS (stas00); FP8 assumed the same"};
  if (name == "mi325x") return {0.60, 0.60, "MAMF: MI325X BF16 784.9 of 1307 TFLOPS (stas00); FP8 assumed the same"};
  if (name == "mi355x") return {0.63, 0.63, "MAMF: MI355X BF16 1565 of 2500 TFLOPS (stas00); FP8 assumed the same"};
  if (arch.rfind("sm_9", 0) == 0) return {0.80, 0.71, "MAMF: H100 figures stand in for an unlisted sm_90 part"};
  if (arch.rfind("sm_10", 0) == 0) return {0.78, 0.76, "MAMF: B200 figures stand in for an unlisted sm_10x part"};
  if (arch.rfind("sm_12", 0) == 0) return {0.51, 0.62, "RTX PRO 6000 figures stand in for an unlisted sm_12x part"};
  if (arch == "gfx942") return {0.51, 0.51, "MAMF: MI300X figures stand in for an unlisted gfx942 (CDNA 3) part"};
  if (arch == "gfx950") return {0.63, 0.63, "MAMF: MI355X figures stand in for an unlisted gfx950 (CDNA 4) part"};
  return {0.70, 0.65, "assumed: no matmul measurement for this hardware; 70% BF16 / 65% FP8 of peak"};
}

}  // namespace

double Profile::matmul_efficiency_for(const std::string& compute_class) const {
  auto it = matmul_efficiency.find(compute_class);
  if (it == matmul_efficiency.end()) {
    throw std::invalid_argument("profile " + hardware + " has no matmul efficiency for " + compute_class);
  }
  return it->second;
}

double Profile::expert_kernel_efficiency_for(const std::string& experts_format) const {
  auto it = expert_kernel_efficiency.find(experts_format);
  if (it == expert_kernel_efficiency.end()) it = expert_kernel_efficiency.find("*");
  return it == expert_kernel_efficiency.end() ? 1.0 : it->second;
}

double Profile::prompt_slowdown_for(const std::string& model_kind) const {
  const auto it = prompt_slowdown.find(model_kind);
  return it == prompt_slowdown.end() ? 1.0 : it->second;
}

Profile datasheet_profile(const specs::HardwareSpec& hw, const std::string& runtime) {
  Profile p;
  p.hardware = hw.name;
  p.runtime = runtime;
  p.kind = "datasheet";
  const std::string vendor = specs::vendor_of_arch(hw.arch);
  const bool amd = vendor == "AMD";
  // The kernel-level figures below were measured on NVIDIA parts; another maker's part takes them as stand-ins.
  const bool other_maker = !vendor.empty() && vendor != "NVIDIA";

  const MatmulFigures mm = matmul_figures(hw.arch, hw.name);
  p.matmul_efficiency["bf16"] = mm.bf16;
  p.matmul_efficiency["fp8"] = mm.fp8;
  p.sources["matmul_efficiency.bf16"] = mm.source;
  p.sources["matmul_efficiency.fp8"] = mm.source;
  if (hw.supports("fp4")) {
    // No public FP4 MAMF figure: FP4 GEMMs are assumed to reach the FP8 share of their (doubled) peak.
    p.matmul_efficiency["fp4"] = mm.fp8;
    p.sources["matmul_efficiency.fp4"] = "assumed: FP8's achieved share applied to the FP4 peak";
  }

  // FlashMLA on H800: 660 TFLOPS compute-bound of 989 BF16 peak = 0.67; on B200 sparse prefill 1,450 of
  // 2,250 = 0.64. Dense attention prefill 1,460 of 2,250 on B200 = 0.65.
  // Attention's matmuls cannot run faster than the part's best plain matmul: where that is below 0.65 (AMD's
  // CDNA parts), it caps the attention figure too.
  p.attention_compute_efficiency = 0.65;
  p.sources["attention_compute_efficiency"] = "FlashMLA: 660/989 TFLOPS H800, 1,460/2,250 B200 (REFERENCE.md s4)";
  if (mm.bf16 < p.attention_compute_efficiency) {
    p.attention_compute_efficiency = mm.bf16;
    p.sources["attention_compute_efficiency"] =
        "capped at the BF16 matmul efficiency (" + std::string(mm.source) + "); FlashMLA reaches 0.65 on NVIDIA parts";
  }

  // FlashMLA memory-bound decode: 3,000 GB/s of 3,350 = 0.90.
  p.memory_efficiency = 0.90;
  p.sources["memory_efficiency"] = "FlashMLA decode 3,000 GB/s on H800 (~90% of HBM) (REFERENCE.md s4)";
  if (other_maker) {
    p.sources["memory_efficiency"] =
        "assumed: no " + vendor + " kernel figure found; " + p.sources["memory_efficiency"] + " stands in";
  }

  // nccl-tests on 8x H100: ~370 GB/s bus bandwidth for collectives other than NVLS all-reduce, against
  // 450 GB/s one-way NVLink: 0.82. AMD's xGMI links carry ~48 of their rated 64 GB/s each way (CRC and protocol
  // overhead), which caps RCCL on them: 0.75.
  // Without a GPU fabric NCCL rings over PCIe: on 8 x RTX PRO 6000 (PCIe Gen5 x16, 64 GB/s each way) all-reduce
  // bus bandwidth is 37.6-41.1 GB/s, and a small all-reduce takes ~24 us against NVLink's ~15 (vLLM's custom
  // all-reduce is off on more than two PCIe-only GPUs, so NCCL serves every TP collective).
  const bool pcie = hw.scale_up_topology == "pcie";
  if (pcie) {
    p.nvlink_efficiency = 0.62;
    p.sources["nvlink_efficiency"] =
        "NCCL all-reduce on 8 x RTX PRO 6000, PCIe Gen5: 37.6-41.1 GB/s busbw of 64 GB/s each way, median 39.8 "
        "(voipmonitor/rtx6kpro hardware/pcie-bandwidth.md)";
    if (other_maker) p.sources["nvlink_efficiency"] = "assumed: " + p.sources["nvlink_efficiency"] + " stands in";
  } else if (amd) {
    p.nvlink_efficiency = 0.75;
    p.sources["nvlink_efficiency"] =
        "xGMI on MI300X: ~48 of 64 GB/s per link each way usable (rocm.blogs.amd.com, RCCL and xGMI on MI300X)";
  } else {
    p.nvlink_efficiency = 0.82;
    p.sources["nvlink_efficiency"] = "NCCL 8x H100: ~370 GB/s busbw of 450 GB/s one-way (REFERENCE.md s4)";
  }

  p.nic_efficiency = 0.94;
  p.sources["nic_efficiency"] = "IB NDR: 46-48 GB/s of 50 GB/s per NIC (REFERENCE.md s4)";

  p.op_latency_s = 3e-6;
  p.sources["op_latency_s"] = "assumed: ~3 us per kernel under CUDA graphs (launch gap and tail), not measured";

  // DeepEP low-latency dispatch of 128 tokens at EP8 takes 77 us: most of it is latency, not bytes.
  p.collective_latency_s = 15e-6;
  p.sources["collective_latency_s"] = "assumed: ~15 us per NCCL call within a node, not measured";
  if (pcie) {
    p.collective_latency_s = 24e-6;
    p.sources["collective_latency_s"] =
        "NCCL all-reduce of 256 B-64 KB on 8 x RTX PRO 6000 behind PCIe switches: 24.1-24.6 us "
        "(voipmonitor/rtx6kpro hardware/pcie-bandwidth.md)";
  }

  p.step_overhead_s = 1.0e-3;
  p.sources["step_overhead_s"] = "assumed: 1 ms host scheduling per step (vLLM v1 with CUDA graphs), not measured";
  return p;
}

const OpPredictor* Profile::predictor(const std::string& op, const std::string& dtype) const {
  for (const auto& pr : predictors) {
    if (pr.op == op && pr.dtype == dtype) return &pr;
  }
  return nullptr;
}

nlohmann::json to_json(const Profile& p) {
  nlohmann::json j{{"hardware", p.hardware},
                   {"runtime", p.runtime},
                   {"kind", p.kind},
                   {"matmul_efficiency", p.matmul_efficiency},
                   {"attention_compute_efficiency", p.attention_compute_efficiency},
                   {"memory_efficiency", p.memory_efficiency},
                   {"nvlink_efficiency", p.nvlink_efficiency},
                   {"nic_efficiency", p.nic_efficiency},
                   {"op_latency_s", p.op_latency_s},
                   {"collective_latency_s", p.collective_latency_s},
                   {"step_overhead_s", p.step_overhead_s},
                   {"sources", p.sources}};
  // Written only when set, so that profiles without them (every datasheet one) keep their bytes.
  if (p.sequence_overhead_s > 0.0) j["sequence_overhead_s"] = p.sequence_overhead_s;
  if (p.request_overhead_s > 0.0) j["request_overhead_s"] = p.request_overhead_s;
  if (p.eager_launch_s > 0.0) j["eager_launch_s"] = p.eager_launch_s;
  if (!p.fitted_models.empty()) j["fitted_models"] = p.fitted_models;
  if (!p.model_kind.empty()) j["model_kind"] = p.model_kind;
  if (!p.prompt_slowdown.empty()) j["prompt_slowdown"] = p.prompt_slowdown;
  if (!p.marginal_prompt_ratio.empty()) j["marginal_prompt_ratio"] = p.marginal_prompt_ratio;
  if (p.expert_memory_efficiency != 1.0) j["expert_memory_efficiency"] = p.expert_memory_efficiency;
  // One number when it is the same for every format (the form written before it was kept by format).
  if (p.expert_kernel_efficiency.size() == 1 && p.expert_kernel_efficiency.count("*")) {
    j["expert_kernel_efficiency"] = p.expert_kernel_efficiency.at("*");
  } else if (!p.expert_kernel_efficiency.empty()) {
    j["expert_kernel_efficiency"] = p.expert_kernel_efficiency;
  }
  detail::write_v2(p, j);
  return j;
}

}  // namespace fleetcast::calibration
