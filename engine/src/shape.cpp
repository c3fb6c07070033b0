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
  order_.push_back(name);
}

void Shape::set_text(const std::string& name, const std::string& value) {
  for (auto& [key, v] : texts_) {
    if (key == name) {
      v = value;
      return;
    }
  }
  texts_.emplace_back(name, value);
  order_.push_back(name);
}

bool Shape::has_text(const std::string& name) const {
  for (const auto& [key, v] : texts_)
    if (key == name) return true;
  return false;
}

const std::string& Shape::text_at(const std::string& name) const {
  for (const auto& [key, v] : texts_)
    if (key == name) return v;
  throw std::out_of_range("shape " + text() + " has no text field '" + name + "'");
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
  for (const auto& name : order_) {
    if (has_text(name)) {
      j[name] = text_at(name);
    } else {
      j[name] = at(name);
    }
  }
  return j;
}

std::string Shape::text() const {
  std::string s;
  for (const auto& name : order_)
    s += (s.empty() ? "" : " ") + name + "=" + (has_text(name) ? text_at(name) : std::to_string(at(name)));
  return s;
}

}  // namespace fleetcast::engine
