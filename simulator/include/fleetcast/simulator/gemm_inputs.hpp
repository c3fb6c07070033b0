#pragma once
// The format activations enter a GEMM in, given how its weights are stored. A tensor-core MMA runs at the rate of
// its wider input: SM100's tcgen05 kind::f8f6f4 multiplies MXFP4 by MXFP8 at the FP8 rate, and only FP4 x FP4
// (kind::mxf4 / mxf4nvf4) reaches the FP4 rate. So the inputs set a GEMM's rate, the weights its bytes.

#include "fleetcast/specs/model.hpp"
#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {

// The activations' format for weights in `weights`, as the serving engines run them:
//   fp4 (MXFP4, gpt-oss's checkpoint format)  fp8: W4A8 with MXFP8 activations on Blackwell. TensorRT-LLM
//          (examples/models/core/gpt_oss/README.md) and SGLang (flashinfer_mxfp4_moe_precision "default" runs
//          mxfp8_quantize) do so by default; vLLM does under VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1, which the
//          Blackwell performance recipes for gpt-oss set (InferenceMAX's B200 launch script among them). vLLM's
//          code default without it is MXFP4 x BF16 (get_mxfp4_backend): a model states that with
//          precision.expert_inputs bf16.
//   nvfp4  nvfp4: ModelOpt's NVFP4 checkpoints quantise the activations too (W4A4).
//   int4   bf16: weight-only (Marlin and its successors).
//   others the weights' own format (FP8 checkpoints run W8A8).
// Without FP4 tensor cores (Hopper) every 4-bit GEMM runs at the BF16 rate whatever this says (RateTable).
specs::Precision gemm_inputs(specs::Precision weights);

// The routed experts' inputs: the model's `expert_inputs` where it sets one, else gemm_inputs of the experts.
specs::Precision expert_gemm_inputs(const specs::ModelPrecision& precision);

}  // namespace fleetcast::simulator
