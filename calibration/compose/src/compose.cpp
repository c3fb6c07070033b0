#include "fleetcast/calibration/compose.hpp"

#include <algorithm>
#include <cmath>

#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::calibration {
namespace {

int shape_int(const traces::CalibrationMeasurement& m, const char* key, const std::string& where) {
  if (!m.shape.contains(key) || !m.shape.at(key).is_number_integer() || m.shape.at(key).get<long long>() < 0) {
    throw InputError(where, std::string("shape.") + key, m.shape.contains(key) ? m.shape.at(key).dump() : "",
                     "a model_step needs an integer >= 0 here");
  }
  return m.shape.at(key).get<int>();
}

std::string shape_text(const traces::CalibrationMeasurement& m, const char* key, const std::string& where) {
  if (!m.shape.contains(key) || !m.shape.at(key).is_string()) {
    throw InputError(where, std::string("shape.") + key, m.shape.contains(key) ? m.shape.at(key).dump() : "",
                     "a model_step needs a string here");
  }
  return m.shape.at(key).get<std::string>();
}

// The model with only its first `layers` layers (dense layers first, as the presets' MoE models have them).
specs::ModelSpec cut(specs::ModelSpec m, int layers, specs::Precision precision) {
  const int all = m.num_layers;
  m.num_layers = layers;
  m.dense_layers = m.moe ? std::min(m.dense_layers, layers) : layers;
  m.attention.sliding_window_layers =
      static_cast<int>(std::lround(static_cast<double>(m.attention.sliding_window_layers) * layers / all));
  if (m.linear_attention) {
    m.linear_attention->layers =
        static_cast<int>(std::lround(static_cast<double>(m.linear_attention->layers) * layers / all));
    if (m.linear_attention->layers == 0) m.linear_attention.reset();
  }
  if (m.attention.indexer_layers > 0) m.attention.indexer_layers = std::min(m.attention.indexer_layers, layers);
  m.mtp_layers = 0;
  m.precision = {};
  m.precision.weights = m.precision.experts = m.precision.kv_cache = m.precision.activations = precision;
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

specs::HardwareSpec hardware_for(const Profile& fitted, const traces::CalibrationTrace& trace) {
  if (auto hw = preset_for_device(trace.header.device)) return *hw;
  specs::HardwareSpec hw;
  hw.name = fitted.hardware;
  hw.source = "fitted from a calibration trace of " + trace.header.device;
  hw.arch = trace.header.backend;
  // simulator/src/hardware_rates.cpp runs fp32 GEMMs and elementwise work at 1/16 of the bf16 peak with no
  // efficiency applied, so the bf16 "peak" of a device that computes in fp32 is 16 x its achieved fp32 GEMM
  // rate (best measured x the profile's fp32 matmul efficiency).
  double gemm = 0.0, copy = 0.0;
  for (const auto& p : fitted.predictors) {
    if (p.op == "gemm") gemm = std::max(gemm, p.roofline.peaks.flops_per_s);
    copy = std::max(copy, p.roofline.peaks.bytes_per_s);
  }
  if (gemm <= 0.0 || copy <= 0.0) {
    throw InputError(trace.header.plan, "gemm", "",
                     "the trace needs GEMM and memcpy measurements for a device of its own");
  }
  const auto mm = fitted.matmul_efficiency.find("fp32");
  hw.peak_tflops["bf16"] = 16.0 * gemm * (mm != fitted.matmul_efficiency.end() ? mm->second : 1.0) / 1e12;
  hw.hbm_tb_per_s = copy / 1e12;
  hw.hbm_gb = 1e6;  // memory is not what a step's time depends on
  hw.gpus_per_node = 1;
  hw.scale_up_domain_gpus = 1;
  return hw;
}

ComposeResult compose_check(const FitInput& input, bool use_predictors) {
  ComposeResult r;
  r.profile = fit_profile({input}, {});
  r.hardware = hardware_for(r.profile, input.trace);
  calibration::Profile profile = r.profile;
  if (!use_predictors) profile.predictors.clear();
  if (r.hardware.arch == "cpu") {
    // Attention FLOPs are timed against the bf16 peak (16 x the GEMM rate above): rescale the fitted share.
    const double mm = profile.matmul_efficiency.count("fp32") ? profile.matmul_efficiency.at("fp32") : 1.0;
    profile.attention_compute_efficiency = std::clamp(profile.attention_compute_efficiency / (16.0 * mm), 1e-6, 1.0);
  }
  for (std::size_t i = 0; i < input.trace.measurements.size(); ++i) {
    const auto& m = input.trace.measurements[i];
    if (m.op != kModelStepOp) continue;
    const std::string where = input.file + ":" + std::to_string(i + 2);
    ComposeRow row;
    row.model = shape_text(m, "model", where);
    row.phase = shape_text(m, "phase", where);
    if (row.phase != "decode" && row.phase != "prefill") {
      throw InputError(where, "shape.phase", row.phase, "valid: decode, prefill");
    }
    row.layers = shape_int(m, "layers", where);
    row.batch = shape_int(m, "batch", where);
    row.context = shape_int(m, "context", where);
    row.new_tokens = shape_int(m, "new_tokens", where);
    const auto precision = specs::parse_precision(m.dtype);
    if (!precision)
      throw InputError(where, "dtype", m.dtype, std::string("valid: ") + std::string(specs::valid_precisions()));
    specs::ModelSpec full = specs::model_preset(row.model);
    if (row.layers < 1 || row.layers > full.num_layers) {
      throw InputError(where, "shape.layers", std::to_string(row.layers),
                       "must be 1 to the model's " + std::to_string(full.num_layers));
    }
    specs::DeploymentSpec d;
    d.name = "compose";
    d.hardware = r.hardware;
    d.gpus_per_node = std::max(1, shape_int(m, "tp", where));
    d.replica.tp = std::max(1, shape_int(m, "tp", where));
    d.replica.ep = std::max(1, shape_int(m, "ep", where));
    d.scheduler.step_overhead_s = profile.step_overhead_s;
    const specs::ModelSpec stepped = cut(full, row.layers, *precision);
    simulator::StepTimeModel model(stepped, d, profile);
    // The rows this rank's experts really got (the routing follows the step's data), where the engine recorded
    // them; else the expected share.
    if (!m.expert_rows.empty()) {
      const int moe_layers = stepped.moe ? stepped.num_layers - stepped.dense_layers : 0;
      const int local = stepped.moe ? stepped.moe->num_routed_experts / d.replica.ep : 0;
      if (static_cast<int>(m.expert_rows.size()) != moe_layers || static_cast<int>(m.expert_rows[0].size()) != local) {
        throw InputError(
            where, "expert_rows",
            std::to_string(m.expert_rows.size()) + " layers of " + std::to_string(m.expert_rows[0].size()) + " experts",
            "the step has " + std::to_string(moe_layers) + " MoE layers of " + std::to_string(local) +
                " local experts");
      }
      model.use_measured_expert_rows({m.expert_rows});
    }
    simulator::BatchShape b;
    for (int s = 0; s < row.batch; ++s) {
      if (row.phase == "decode") {
        b.decode_contexts.push_back(row.context);
      } else {
        b.prefill.push_back({row.new_tokens, row.context, true});
      }
    }
    row.measured_s = m.median_s;
    // The engine's model step is one rank of the group and runs no collective (engine/README.md, "model_step"):
    // its TP all-reduces and EP exchanges are not part of what it measured.
    const simulator::StepTime st = model.predict(b);
    // (Summed without them: a CPU has no link, its collectives' time is infinite.)
    row.predicted_s = 0.0;
    for (int o = 0; o < simulator::kNumOps; ++o) {
      const auto op = static_cast<simulator::Op>(o);
      if (op != simulator::Op::tp_allreduce && op != simulator::Op::ep_alltoall) row.predicted_s += st.ops[o].time_s;
    }
    row.ape = std::abs(row.predicted_s - row.measured_s) / row.measured_s;
    r.rows.push_back(row);
  }
  if (r.rows.empty()) throw InputError(input.file, "op", "", "no model_step records: nothing to compose");
  std::vector<double> apes;
  for (const auto& row : r.rows) apes.push_back(row.ape);
  r.median_ape = median(apes);
  r.max_ape = *std::max_element(apes.begin(), apes.end());
  return r;
}

}  // namespace fleetcast::calibration
