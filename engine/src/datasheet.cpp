#include "fleetcast/engine/datasheet.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "fleetcast/specs/presets.hpp"

namespace fleetcast::engine {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<std::string> preset_name_for(const std::string& device_name) {
  const std::string device = lower(device_name);
  std::vector<std::string> names;
  for (const auto& p : specs::list_presets(specs::PresetKind::hardware)) names.push_back(p.name);
  std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const auto& n : names)
    if (device.find(n) != std::string::npos) return n;
  return std::nullopt;
}

}  // namespace

std::optional<specs::HardwareSpec> datasheet_for(const std::string& device_name) {
  const auto name = preset_name_for(device_name);
  if (!name) return std::nullopt;
  return specs::hardware_preset(*name);
}

std::string device_slug(const std::string& device_name) {
  if (const auto name = preset_name_for(device_name)) return *name;
  std::string slug;
  for (const char c : lower(device_name)) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      slug += c;
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown-device" : slug;
}

}  // namespace fleetcast::engine
