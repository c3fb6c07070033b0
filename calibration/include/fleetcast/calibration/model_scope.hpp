#pragma once
// Which of a serving fit's figures a model takes. A fit made on the measured runs of MoE models alone cannot tell
// its GEMM and attention rates from the routed experts' kernels those models spend their prefill in: on B300 under
// vLLM the fit made on MiniMax-M2.5 alone runs every GEMM at 0.29 of peak, which costs the MoE models' steps about
// right and a dense model's prefill twice what vLLM measured (docs/ACCURACY.md, "The step model against measured
// engine iterations"). A dense model therefore takes the kernel-level (datasheet) GEMM and attention rates there,
// and the fit's memory, link and host figures, which do not depend on the kind of FFN.

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::calibration {

// True when every name in fit.fitted_models is a model preset with routed experts (false when the list is empty or
// names a model that is not a preset: nothing is known of it then).
bool fitted_on_moe_models_only(const Profile& fit);

// `fit` as `model` should use it: unchanged for a MoE model or a fit not made on MoE models alone; for a dense model
// on a fit made on MoE models alone, matmul_efficiency and attention_compute_efficiency from `datasheet` (with their
// sources saying why).
Profile scope_to_model(const Profile& fit, const specs::ModelSpec& model, const Profile& datasheet);

}  // namespace fleetcast::calibration
