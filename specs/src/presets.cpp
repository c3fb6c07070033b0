// The presets compiled into the library: lookup, listing and parsing.

#include "fleetcast/specs/presets.hpp"

#include <algorithm>

#include "enum_names.hpp"
#include "fleetcast/specs/load.hpp"
#include "presets_internal.hpp"

namespace fleetcast::specs {

namespace {

std::vector<const detail::EmbeddedPreset*> presets_of(PresetKind kind) {
  std::vector<const detail::EmbeddedPreset*> out;
  for (const auto& p : detail::embedded_presets())
    if (p.kind == kind) out.push_back(&p);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  return out;
}

const detail::EmbeddedPreset* find_preset(PresetKind kind, const std::string& name) {
  for (const auto& p : detail::embedded_presets())
    if (p.kind == kind && p.name == name) return &p;
  return nullptr;
}

std::string preset_file(PresetKind kind, std::string_view name) {
  return "preset:" + std::string(detail::name_of(detail::kPresetKindNames, kind)) + "/" + std::string(name);
}

nlohmann::json parse_text(const detail::EmbeddedPreset& p) {
  try {
    return nlohmann::json::parse(p.text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(preset_file(p.kind, p.name), "", "", std::string("invalid JSON: ") + e.what());
  }
}

// The scenario's name, less a leading "<preset name>: " that would repeat the preset's name.
std::string scenario_summary(std::string_view preset_name, const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) return "(no name)";
  std::string name = j["name"].get<std::string>();
  const std::string repeated = std::string(preset_name) + ": ";
  if (name.starts_with(repeated) && name.size() > repeated.size()) name.erase(0, repeated.size());
  return name;
}

}  // namespace

std::vector<PresetInfo> list_presets(PresetKind kind) {
  std::vector<PresetInfo> out;
  for (const auto* p : presets_of(kind)) {
    const nlohmann::json j = parse_text(*p);
    const std::string file = preset_file(kind, p->name);
    std::string summary;
    switch (kind) {
      case PresetKind::model:
        summary = detail::model_summary(parse_model(j, file));
        break;
      case PresetKind::hardware:
        summary = detail::hardware_summary(parse_hardware(j, file));
        break;
      case PresetKind::scenario:
        summary = scenario_summary(p->name, j);
        break;
    }
    out.push_back(PresetInfo{std::string(p->name), std::move(summary)});
  }
  return out;
}

bool has_preset(PresetKind kind, const std::string& name) { return find_preset(kind, name) != nullptr; }

nlohmann::json preset_json(PresetKind kind, const std::string& name, const std::string& file,
                           const std::string& field) {
  const detail::EmbeddedPreset* p = find_preset(kind, name);
  if (p == nullptr) {
    std::string valid;
    for (const auto* q : presets_of(kind)) valid += (valid.empty() ? "" : ", ") + std::string(q->name);
    throw InputError(file, field, nlohmann::json(name).dump(),
                     "unknown " + std::string(detail::name_of(detail::kPresetKindNames, kind)) +
                         " preset; valid: " + (valid.empty() ? std::string("(none)") : valid));
  }
  return parse_text(*p);
}

ModelSpec model_preset(const std::string& name) {
  return parse_model(preset_json(PresetKind::model, name), preset_file(PresetKind::model, name));
}

HardwareSpec hardware_preset(const std::string& name) {
  return parse_hardware(preset_json(PresetKind::hardware, name), preset_file(PresetKind::hardware, name));
}

}  // namespace fleetcast::specs
