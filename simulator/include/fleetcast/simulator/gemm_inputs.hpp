#pragma once
// The format a serving runtime feeds activations into a GEMM in, given how its weights are stored. A tensor-core
// MMA runs at the rate of its wider input: SM100's tcgen05 kind::f8f6f4 multiplies MXFP4 by MXFP8 at the FP8 rate,
// and only FP4 x FP4 (kind::mxf4 / mxf4nvf4) reaches the FP4 rate. So the inputs set a GEMM's rate, the weights
// its bytes.

#include <string_view>

#include "fleetcast/specs/model.hpp"
#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {

// The runtime's default activation format for weights in `weights`:
//   fp4 (MXFP4, gpt-oss's checkpoint format)
//     vllm      bf16: get_mxfp4_backend (vllm/model_executor/layers/quantization/mxfp4.py) picks
//               SM100_FI_MXFP4_BF16 on SM100 unless VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8 is set;
//     sglang    fp8: flashinfer_mxfp4_moe_precision "default" runs mxfp8_quantize on the input
//               (sglang/srt/layers/quantization/mxfp4.py);
//     trtllm    fp8: MXFP8 activations on Blackwell (TensorRT-LLM examples/models/core/gpt_oss/README.md);
//     otherwise fp8, as DeepSeek's engines run FP8 activations.
//   nvfp4  nvfp4: ModelOpt's NVFP4 checkpoints quantise the activations too (W4A4).
//   int4   bf16: weight-only (Marlin and its successors).
//   others the weights' own format (FP8 checkpoints run W8A8).
// Without FP4 tensor cores (Hopper) every 4-bit GEMM runs at the BF16 rate whatever this says (RateTable).
specs::Precision gemm_inputs(specs::Precision weights, std::string_view runtime);

// The routed experts' inputs: the model's `expert_inputs` where its checkpoint sets one, else the runtime's.
specs::Precision expert_gemm_inputs(const specs::ModelPrecision& precision, std::string_view runtime);

}  // namespace fleetcast::simulator
