// The leave-one-model-out error table of the shipped serving fits (unseen_model_accuracy.hpp).
#include "fleetcast/calibration/unseen_model_accuracy.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "embedded_profiles.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "json_member.hpp"

namespace fleetcast::calibration {
namespace {

constexpr const char* kSchema = "fleetcast.unseen-model-accuracy/1";
constexpr const char* kShippedName = "accuracy/unseen-models";

using detail::member;

std::vector<std::string> strings(const nlohmann::json& j, const std::string& file, const std::string& where) {
  std::vector<std::string> out;
  for (const auto& s : j) {
    if (!s.is_string()) throw InputError(file, where, s.dump(), "model names are strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

nlohmann::json fold_json(const LeftOutModel& f) {
  return {{"left_out", f.model},
          {"rows", f.rows},
          {"trained_on", f.trained_on},
          {"fit", {{"ttft", to_json(f.fit_ttft)}, {"tpot", to_json(f.fit_tpot)}}},
          {"datasheet", {{"ttft", to_json(f.datasheet_ttft)}, {"tpot", to_json(f.datasheet_tpot)}}}};
}

LeftOutModel parse_fold(const nlohmann::json& j, const std::string& file, const std::string& at) {
  LeftOutModel f;
  f.model = member(j, "left_out", file, at, &nlohmann::json::is_string).get<std::string>();
  f.rows = member(j, "rows", file, at, &nlohmann::json::is_number_integer).get<int>();
  if (f.rows < 1) throw InputError(file, at + "rows", std::to_string(f.rows), "at least one run scored");
  f.trained_on = strings(member(j, "trained_on", file, at, &nlohmann::json::is_array), file, at + "trained_on");
  if (f.trained_on.empty()) throw InputError(file, at + "trained_on", "[]", "a refit is trained on some model");
  const auto& fit = member(j, "fit", file, at, &nlohmann::json::is_object);
  const auto& datasheet = member(j, "datasheet", file, at, &nlohmann::json::is_object);
  f.fit_ttft =
      parse_error_figures(member(fit, "ttft", file, at + "fit.", &nlohmann::json::is_object), file, at + "fit.ttft.");
  f.fit_tpot =
      parse_error_figures(member(fit, "tpot", file, at + "fit.", &nlohmann::json::is_object), file, at + "fit.tpot.");
  f.datasheet_ttft = parse_error_figures(member(datasheet, "ttft", file, at + "datasheet.", &nlohmann::json::is_object),
                                         file, at + "datasheet.ttft.");
  f.datasheet_tpot = parse_error_figures(member(datasheet, "tpot", file, at + "datasheet.", &nlohmann::json::is_object),
                                         file, at + "datasheet.tpot.");
  return f;
}

}  // namespace

std::vector<std::string> UnseenModelAccuracy::models() const {
  std::set<std::string> all;
  for (const LeftOutModel& f : folds) {
    all.insert(f.model);
    all.insert(f.trained_on.begin(), f.trained_on.end());
  }
  return {all.begin(), all.end()};
}

nlohmann::json to_json(const UnseenModelAccuracy& a) {
  nlohmann::json folds = nlohmann::json::array();
  for (const LeftOutModel& f : a.folds) folds.push_back(fold_json(f));
  return {{"hardware", a.hardware}, {"runtime", a.runtime}, {"recipe", a.recipe}, {"folds", folds}};
}

std::vector<UnseenModelAccuracy> parse_unseen_model_table(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object() || j.value("schema", "") != kSchema)
    throw InputError(file, "schema", j.is_object() && j.contains("schema") ? j["schema"].dump() : "",
                     std::string("not a table of errors on models left out (") + kSchema + ")");
  std::vector<UnseenModelAccuracy> out;
  const nlohmann::json& pairs = member(j, "pairs", file, "", &nlohmann::json::is_array);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = "pairs[" + std::to_string(i) + "].";
    UnseenModelAccuracy a;
    a.hardware = member(pairs[i], "hardware", file, at, &nlohmann::json::is_string).get<std::string>();
    a.runtime = member(pairs[i], "runtime", file, at, &nlohmann::json::is_string).get<std::string>();
    a.recipe = member(pairs[i], "recipe", file, at, &nlohmann::json::is_string).get<std::string>();
    const auto& folds = member(pairs[i], "folds", file, at, &nlohmann::json::is_array);
    if (folds.empty()) throw InputError(file, at + "folds", "[]", "at least one model left out");
    for (std::size_t k = 0; k < folds.size(); ++k)
      a.folds.push_back(parse_fold(folds[k], file, at + "folds[" + std::to_string(k) + "]."));
    out.push_back(std::move(a));
  }
  return out;
}

std::string UnseenModelAccuracy::model_kind() const {
  for (const char* kind : {"dense", "moe"}) {
    const std::string flag = std::string("--models ") + kind;
    const auto at = recipe.find(flag);
    if (at != std::string::npos && (at + flag.size() == recipe.size() || recipe[at + flag.size()] == ' ')) return kind;
  }
  return "";
}

nlohmann::json merge_unseen_model_table(std::vector<UnseenModelAccuracy> all, const UnseenModelAccuracy& fresh,
                                        const std::string& how) {
  // One entry per (hardware, runtime) and kind of fit: the pair's, and one per kind of model fitted alone.
  const auto key = [](const UnseenModelAccuracy& a) { return std::make_tuple(a.hardware, a.runtime, a.model_kind()); };
  all.erase(std::remove_if(all.begin(), all.end(), [&](const auto& a) { return key(a) == key(fresh); }), all.end());
  all.push_back(fresh);
  std::sort(all.begin(), all.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  nlohmann::json pairs = nlohmann::json::array();
  for (const UnseenModelAccuracy& a : all) pairs.push_back(to_json(a));
  return {{"schema", kSchema}, {"how", how}, {"pairs", pairs}};
}

const std::vector<UnseenModelAccuracy>& shipped_unseen_model_accuracy() {
  static const std::vector<UnseenModelAccuracy> table = [] {
    const char* json = detail::embedded_json(kShippedName);
    return json ? parse_unseen_model_table(nlohmann::json::parse(json),
                                           std::string("calibration/profiles/") + kShippedName + ".json")
                : std::vector<UnseenModelAccuracy>{};
  }();
  return table;
}

std::optional<UnseenModelError> unseen_model_error_for(const Profile& in_use, const std::string& runtime,
                                                       const std::string& model, const std::string& architecture,
                                                       const std::vector<UnseenModelAccuracy>& table) {
  if (in_use.kind != "fitted" || in_use.fitted_models.empty()) return std::nullopt;
  const auto& seen = in_use.fitted_models;
  if (std::find(seen.begin(), seen.end(), model) != seen.end()) return std::nullopt;
  std::vector<std::string> fit_models = seen;
  std::sort(fit_models.begin(), fit_models.end());

  UnseenModelError e;
  e.hardware = in_use.hardware;
  e.runtime = runtime;
  e.architecture = architecture;
  std::vector<const ErrorFigures*> ttft, tpot;
  const auto of_this_kind = [&](const LeftOutModel& f) {
    return specs::has_preset(specs::PresetKind::model, f.model) &&
           architecture_of(specs::model_preset(f.model)) == architecture;
  };
  const auto take = [&](const UnseenModelAccuracy& a, bool name_pair) {
    for (const LeftOutModel& f : a.folds) {
      if (!of_this_kind(f)) continue;
      e.models_left_out.push_back(name_pair ? a.hardware + " " + f.model : f.model);
      e.rows += f.rows;
      ttft.push_back(&f.fit_ttft);
      tpot.push_back(&f.fit_tpot);
    }
  };
  for (const UnseenModelAccuracy& a : table) {
    if (a.hardware == in_use.hardware && a.runtime == runtime && a.model_kind() == in_use.model_kind &&
        a.models() == fit_models) {
      e.scope = "pair";
      take(a, false);
    }
  }
  // A fit of one model has nothing to leave out, and one whose folds left out no model of this kind says nothing of
  // it: the same runtime's folds on the other GPUs say what its recipe does on a model it did not see.
  if (ttft.empty() && (e.scope == "pair" || fit_models.size() == 1)) {
    e.scope = "runtime";
    for (const UnseenModelAccuracy& a : table) {
      if (a.runtime == runtime && a.hardware != in_use.hardware && a.model_kind() == in_use.model_kind) take(a, true);
    }
  }
  if (ttft.empty()) return std::nullopt;
  e.ttft = spread_of(ttft);
  e.tpot = spread_of(tpot);
  return e;
}

std::optional<UnseenModelError> unseen_model_error_for(const Profile& in_use, const std::string& runtime,
                                                       const std::string& model, const std::string& architecture) {
  return unseen_model_error_for(in_use, runtime, model, architecture, shipped_unseen_model_accuracy());
}

nlohmann::json to_json(const UnseenModelError& e) {
  nlohmann::json j = {
      {"scope", e.scope}, {"hardware", e.hardware},  {"runtime", e.runtime},   {"models_left_out", e.models_left_out},
      {"rows", e.rows},   {"ttft", to_json(e.ttft)}, {"tpot", to_json(e.tpot)}};
  if (!e.architecture.empty()) j["architecture"] = e.architecture;
  return j;
}

nlohmann::json unseen_model_error_json(const Profile& in_use, const std::string& runtime,
                                       const specs::ModelSpec& model) {
  const auto e = unseen_model_error_for(in_use, runtime, model.name, architecture_of(model));
  return e ? to_json(*e) : nlohmann::json(nullptr);
}

UnseenModelError parse_unseen_model_error(const nlohmann::json& j, const std::string& file, const std::string& at) {
  UnseenModelError e;
  e.scope = member(j, "scope", file, at, &nlohmann::json::is_string).get<std::string>();
  if (e.scope != "pair" && e.scope != "runtime")
    throw InputError(file, at + "scope", e.scope, "expected \"pair\" or \"runtime\"");
  e.hardware = member(j, "hardware", file, at, &nlohmann::json::is_string).get<std::string>();
  e.runtime = member(j, "runtime", file, at, &nlohmann::json::is_string).get<std::string>();
  e.models_left_out =
      strings(member(j, "models_left_out", file, at, &nlohmann::json::is_array), file, at + "models_left_out");
  if (e.models_left_out.empty()) throw InputError(file, at + "models_left_out", "[]", "at least one model left out");
  e.rows = member(j, "rows", file, at, &nlohmann::json::is_number_integer).get<int>();
  e.ttft = parse_error_spread(member(j, "ttft", file, at, &nlohmann::json::is_object), file, at + "ttft.");
  e.tpot = parse_error_spread(member(j, "tpot", file, at, &nlohmann::json::is_object), file, at + "tpot.");
  e.architecture = parse_architecture(j, file, at);
  return e;
}

std::string describe(const UnseenModelError& e) {
  const std::string n = std::to_string(e.models_left_out.size());
  const std::string kind = e.architecture == "moe" ? " MoE" : e.architecture == "dense" ? " dense" : "";
  const std::string models = kind + (e.models_left_out.size() == 1 ? " model" : " models");
  return "on a model outside the fit's measured runs: " + describe(e.ttft, e.tpot, "model") + ", " + n + models +
         (e.scope == "pair" ? " of " + e.hardware + " " + e.runtime
                            : " of the other " + e.runtime + " GPUs (none of this fit's own to leave out)") +
         " left out one at a time and refitted without them (" + std::to_string(e.rows) + " runs)";
}

}  // namespace fleetcast::calibration
