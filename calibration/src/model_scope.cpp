// A serving fit's figures by the kind of model that uses them (model_scope.hpp).
#include "fleetcast/calibration/model_scope.hpp"

#include "fleetcast/specs/presets.hpp"

namespace fleetcast::calibration {

bool fitted_on_moe_models_only(const Profile& fit) {
  if (fit.fitted_models.empty()) return false;
  for (const std::string& name : fit.fitted_models) {
    if (!specs::has_preset(specs::PresetKind::model, name)) return false;
    if (!specs::model_preset(name).moe) return false;
  }
  return true;
}

Profile scope_to_model(const Profile& fit, const specs::ModelSpec& model, const Profile& datasheet) {
  if (model.moe || !fitted_on_moe_models_only(fit)) return fit;
  Profile p = fit;
  std::string models;
  for (const std::string& name : fit.fitted_models) models += (models.empty() ? "" : ", ") + name;
  const std::string why = "; the serving fit was made on MoE models only (" + models +
                          "), whose fitted rate holds their experts' kernels: kernel-level for a dense model";
  for (const auto& [compute_class, efficiency] : fit.matmul_efficiency)
    p.sources.erase("matmul_efficiency." + compute_class);
  p.matmul_efficiency = datasheet.matmul_efficiency;
  for (const auto& [compute_class, efficiency] : datasheet.matmul_efficiency) {
    const auto it = datasheet.sources.find("matmul_efficiency." + compute_class);
    p.sources["matmul_efficiency." + compute_class] = (it == datasheet.sources.end() ? "datasheet" : it->second) + why;
  }
  p.attention_compute_efficiency = datasheet.attention_compute_efficiency;
  const auto it = datasheet.sources.find("attention_compute_efficiency");
  p.sources["attention_compute_efficiency"] = (it == datasheet.sources.end() ? "datasheet" : it->second) + why;
  return p;
}

}  // namespace fleetcast::calibration
