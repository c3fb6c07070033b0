#include "fleetcast/simulator/gemm_inputs.hpp"

namespace fleetcast::simulator {

specs::Precision gemm_inputs(specs::Precision weights) {
  using specs::Precision;
  switch (weights) {
    case Precision::fp4:
      return Precision::fp8;
    case Precision::int4:
      return Precision::bf16;
    case Precision::fp32:
    case Precision::bf16:
    case Precision::fp16:
    case Precision::fp8:
    case Precision::nvfp4:
      return weights;
  }
  return weights;
}

specs::Precision expert_gemm_inputs(const specs::ModelPrecision& precision) {
  return precision.expert_inputs.value_or(gemm_inputs(precision.experts));
}

}  // namespace fleetcast::simulator
