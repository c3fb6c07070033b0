#include "spec_ref.hpp"

#include "fleetcast/specs/load.hpp"

namespace fleetcast::specs::detail {

namespace {

bool ends_with_json(const std::string& s) { return s.size() > 5 && s.ends_with(".json"); }

}  // namespace

SpecRef resolve_spec_ref(JsonReader& r, const std::string& key, std::optional<PresetKind> preset_kind,
                         const std::filesystem::path& base_dir) {
  const nlohmann::json* v = r.raw(key);
  if (v == nullptr) r.missing(key);
  const std::string expected = preset_kind ? "an object, a " + std::string(name_of(kPresetKindNames, *preset_kind)) +
                                                 " preset name or a path to a .json file"
                                           : "an object or a path to a .json file";
  if (v->is_object()) return SpecRef{*v, r.file(), r.path(key), base_dir};
  if (!v->is_string())
    throw InputError(r.file(), r.path(key), value_text(*v),
                     "wrong type: expected " + expected + ", got " + type_description(*v));
  const std::string text = v->get<std::string>();
  if (ends_with_json(text)) {
    const std::filesystem::path path = (base_dir / text).lexically_normal();
    try {
      return SpecRef{read_json_file(path), path.string(), "", path.parent_path()};
    } catch (const InputError& e) {
      if (!e.field().empty() || e.problem() != "cannot open file") throw;
      throw InputError(r.file(), r.path(key), value_text(*v), "cannot open file " + path.string());
    }
  }
  if (!preset_kind) r.fail(key, "expected " + expected);
  nlohmann::json j = preset_json(*preset_kind, text, r.file(), r.path(key));
  return SpecRef{std::move(j), "preset:" + std::string(name_of(kPresetKindNames, *preset_kind)) + "/" + text, "", "."};
}

}  // namespace fleetcast::specs::detail
