#include "fleetcast/engine/shape.hpp"

#include <stdexcept>

namespace fleetcast::engine {

void Shape::set(const std::string& name, std::int64_t value) {
  for (auto& [key, v] : fields_) {
    if (key == name) {
      v = value;
      return;
    }
  }
  fields_.emplace_back(name, value);
}

bool Shape::has(const std::string& name) const {
  for (const auto& [key, v] : fields_)
    if (key == name) return true;
  return false;
}

std::int64_t Shape::at(const std::string& name) const {
  for (const auto& [key, v] : fields_)
    if (key == name) return v;
  throw std::out_of_range("shape " + text() + " has no field '" + name + "'");
}

nlohmann::ordered_json Shape::to_json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, v] : fields_) j[key] = v;
  return j;
}

std::string Shape::text() const {
  std::string s;
  for (const auto& [key, v] : fields_) s += (s.empty() ? "" : " ") + key + "=" + std::to_string(v);
  return s;
}

}  // namespace fleetcast::engine
