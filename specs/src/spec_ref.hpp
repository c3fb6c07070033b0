#pragma once
// Private: a field that holds a spec inline, as a path to a .json file, or as a preset name.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fleetcast/specs/presets.hpp"
#include "json_reader.hpp"

namespace fleetcast::specs::detail {

// The spec's JSON and where to say it came from in messages.
struct SpecRef {
  nlohmann::json json;
  std::string file;                // the file to name in messages
  std::string prefix;              // the field path of the object within that file
  std::filesystem::path base_dir;  // where relative paths inside it resolve
};

// Reads `key` of `r` (required): an object is used as is; a string ending in ".json" is read from
// `base_dir`; any other string is a preset of `preset_kind`, or an error when presets are not allowed.
SpecRef resolve_spec_ref(JsonReader& r, const std::string& key, std::optional<PresetKind> preset_kind,
                         const std::filesystem::path& base_dir);

}  // namespace fleetcast::specs::detail
