#include <set>

#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/precision.hpp"
#include "profile_v2_json.hpp"

namespace fleetcast::calibration {
namespace {

const std::set<std::string> kKeys = {"hardware", "runtime", "kind", "matmul_efficiency", "attention_compute_efficiency",
                                     "memory_efficiency", "nvlink_efficiency", "nic_efficiency", "op_latency_s",
                                     "collective_latency_s", "step_overhead_s", "sources",
                                     // optional: host overheads fitted to serving runs (0 when absent)
                                     "sequence_overhead_s", "request_overhead_s", "eager_launch_s",
                                     // optional: fitted to serving runs (1 when absent)
                                     "expert_kernel_efficiency", "expert_memory_efficiency",
                                     // optional: the model presets a serving fit was made on (none when absent)
                                     "fitted_models",
                                     // optional: the kind of model a fit is for (every model when absent)
                                     "model_kind",
                                     // optional: a prompt's slowdown, and the measured ratio that carries (none)
                                     "prompt_slowdown", "marginal_prompt_ratio",
                                     // schema v2, optional (profile_v2_json.hpp)
                                     "predictors", "collectives", "quality", "traces",
                                     // schema v3, optional: SimGrid network factors
                                     "network_factors"};

const nlohmann::json& field(const nlohmann::json& j, const std::string& key, const std::string& file) {
  if (!j.contains(key)) throw InputError(file, key, "", "missing; a profile needs every one of its fields");
  return j.at(key);
}

std::string text(const nlohmann::json& j, const std::string& key, const std::string& file) {
  const auto& v = field(j, key, file);
  if (!v.is_string()) throw InputError(file, key, v.dump(), "expected a string");
  return v.get<std::string>();
}

double number(const nlohmann::json& v, const std::string& key, const std::string& file, double lo, double hi) {
  if (!v.is_number()) throw InputError(file, key, v.dump(), "expected a number");
  const double x = v.get<double>();
  if (!(x > lo && x <= hi)) {
    throw InputError(file, key, v.dump(), "must be in (" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return x;
}

double efficiency(const nlohmann::json& j, const std::string& key, const std::string& file) {
  return number(field(j, key, file), key, file, 0.0, 1.0);
}

double seconds(const nlohmann::json& j, const std::string& key, const std::string& file) {
  const auto& v = field(j, key, file);
  if (!v.is_number() || v.get<double>() < 0.0 || v.get<double>() > 1.0) {
    throw InputError(file, key, v.dump(), "expected seconds from 0 to 1");
  }
  return v.get<double>();
}

// A number (every format) or an object by the experts' weight format, "*" for every format not named.
std::map<std::string, double> expert_efficiencies(const nlohmann::json& j, const std::string& file) {
  const std::string key = "expert_kernel_efficiency";
  const auto& v = j.at(key);
  if (v.is_number()) return {{"*", efficiency(j, key, file)}};
  if (!v.is_object() || v.empty()) {
    throw InputError(file, key, v.dump(), "a number, or an object by the experts' weight format (fp8, nvfp4, ...)");
  }
  std::map<std::string, double> by_format;
  for (const auto& [format, value] : v.items()) {
    if (format != "*" && !specs::parse_precision(format)) {
      throw InputError(file, key + "." + format, value.dump(),
                       "not a precision; valid: " + std::string(specs::valid_precisions()) + ", or *");
    }
    by_format[format] = number(value, key + "." + format, file, 0.0, 1.0);
  }
  return by_format;
}

// A list of model names, each a non-empty string, sorted and without repeats (so a profile writes one way).
std::vector<std::string> model_names(const nlohmann::json& j, const std::string& file) {
  const auto& v = j.at("fitted_models");
  if (!v.is_array() || v.empty()) throw InputError(file, "fitted_models", v.dump(), "a non-empty array of model names");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string key = "fitted_models[" + std::to_string(i) + "]";
    if (!v[i].is_string() || v[i].get<std::string>().empty())
      throw InputError(file, key, v[i].dump(), "expected a model name");
    if (!names.empty() && v[i].get<std::string>() <= names.back())
      throw InputError(file, key, v[i].dump(), "names sorted, each once");
    names.push_back(v[i].get<std::string>());
  }
  return names;
}

// An object by kind of model ("dense", "moe") of factors in (0, 100]: how many times a kernel-level figure.
std::map<std::string, double> by_model_kind(const nlohmann::json& j, const std::string& key, const std::string& file) {
  const auto& v = j.at(key);
  if (!v.is_object() || v.empty()) throw InputError(file, key, v.dump(), "an object by kind of model (dense, moe)");
  std::map<std::string, double> out;
  for (const auto& [kind, value] : v.items()) {
    if (!is_architecture(kind)) throw InputError(file, key + "." + kind, value.dump(), "valid kinds: dense, moe");
    out[kind] = number(value, key + "." + kind, file, 0.0, 100.0);
  }
  return out;
}

}  // namespace

Profile parse_profile(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object()) throw InputError(file, "", j.dump().substr(0, 40), "a profile is a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (!kKeys.count(key)) throw InputError(file, key, value.dump(), "unknown key in a profile");
  }
  Profile p;
  p.hardware = text(j, "hardware", file);
  p.runtime = text(j, "runtime", file);
  p.kind = text(j, "kind", file);
  if (p.kind != "datasheet" && p.kind != "fitted" && p.kind != "measured") {
    throw InputError(file, "kind", "\"" + p.kind + "\"", "valid: datasheet, fitted, measured");
  }
  const auto& mm = field(j, "matmul_efficiency", file);
  if (!mm.is_object() || !mm.contains("bf16")) {
    throw InputError(file, "matmul_efficiency", mm.dump(), "an object by compute class with at least bf16");
  }
  for (const auto& [cls, value] : mm.items()) {
    p.matmul_efficiency[cls] = number(value, "matmul_efficiency." + cls, file, 0.0, 1.0);
  }
  p.attention_compute_efficiency = efficiency(j, "attention_compute_efficiency", file);
  p.memory_efficiency = efficiency(j, "memory_efficiency", file);
  p.nvlink_efficiency = efficiency(j, "nvlink_efficiency", file);
  p.nic_efficiency = efficiency(j, "nic_efficiency", file);
  p.op_latency_s = seconds(j, "op_latency_s", file);
  p.collective_latency_s = seconds(j, "collective_latency_s", file);
  p.step_overhead_s = seconds(j, "step_overhead_s", file);
  // Optional: profiles written before these fields existed leave them at 0.
  if (j.contains("sequence_overhead_s")) p.sequence_overhead_s = seconds(j, "sequence_overhead_s", file);
  if (j.contains("request_overhead_s")) p.request_overhead_s = seconds(j, "request_overhead_s", file);
  if (j.contains("eager_launch_s")) p.eager_launch_s = seconds(j, "eager_launch_s", file);
  if (j.contains("expert_kernel_efficiency")) p.expert_kernel_efficiency = expert_efficiencies(j, file);
  if (j.contains("expert_memory_efficiency"))
    p.expert_memory_efficiency = efficiency(j, "expert_memory_efficiency", file);
  if (j.contains("fitted_models")) p.fitted_models = model_names(j, file);
  if (j.contains("prompt_slowdown")) p.prompt_slowdown = by_model_kind(j, "prompt_slowdown", file);
  if (j.contains("marginal_prompt_ratio")) p.marginal_prompt_ratio = by_model_kind(j, "marginal_prompt_ratio", file);
  if (j.contains("model_kind")) {
    p.model_kind = text(j, "model_kind", file);
    if (!is_architecture(p.model_kind))
      throw InputError(file, "model_kind", "\"" + p.model_kind + "\"", "valid: dense, moe (absent: every model)");
  }
  const auto& src = field(j, "sources", file);
  if (!src.is_object()) throw InputError(file, "sources", src.dump(), "an object: field -> where it came from");
  for (const auto& [key, value] : src.items()) {
    if (!value.is_string()) throw InputError(file, "sources." + key, value.dump(), "expected a string");
    p.sources[key] = value.get<std::string>();
  }
  detail::read_v2(j, file, p);
  return p;
}

}  // namespace fleetcast::calibration
