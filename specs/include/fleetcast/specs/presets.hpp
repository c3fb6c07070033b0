#pragma once
// Presets shipped in specs/presets/ and compiled into the library, so the binary needs no data folder.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/hardware.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::specs {

enum class PresetKind { model, hardware, scenario };

struct PresetInfo {
  std::string name;
  std::string summary;  // one line for `fleetcast presets`
};

std::vector<PresetInfo> list_presets(PresetKind kind);  // sorted by name
bool has_preset(PresetKind kind, const std::string& name);
// Throws InputError(file, field, name, "unknown <kind> preset; valid: a, b, c") when absent.
nlohmann::json preset_json(PresetKind kind, const std::string& name, const std::string& file = "",
                           const std::string& field = "");
ModelSpec model_preset(const std::string& name);
HardwareSpec hardware_preset(const std::string& name);

}  // namespace fleetcast::specs
