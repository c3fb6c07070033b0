#pragma once
// A required member of a JSON object, of one type, for the strict readers of calibration's tables.
#include <nlohmann/json.hpp>
#include <string>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::calibration::detail {

// j[key] when j is an object holding it with (j[key].*is)() true; an InputError naming `file` and `where` + key (with
// the value found, if any) otherwise.
inline const nlohmann::json& member(const nlohmann::json& j, const std::string& key, const std::string& file,
                                    const std::string& where, bool (nlohmann::json::*is)() const noexcept) {
  if (!j.is_object() || !j.contains(key) || !(j.at(key).*is)())
    throw InputError(file, where + key, j.is_object() && j.contains(key) ? j.at(key).dump() : "",
                     "missing or of the wrong type");
  return j.at(key);
}

}  // namespace fleetcast::calibration::detail
