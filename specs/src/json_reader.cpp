#include "json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fleetcast::specs::detail {

namespace {

constexpr std::size_t kMaxValueText = 120;

}  // namespace

std::string value_text(const json& v) {
  std::string s = v.dump();
  if (s.size() > kMaxValueText) s = s.substr(0, kMaxValueText - 3) + "...";
  return s;
}

std::string type_description(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a floating-point number";
    default:
      return "an unsupported value";
  }
}

std::string join_path(const std::string& prefix, const std::string& key) {
  if (prefix.empty()) return key;
  if (key.empty()) return prefix;
  return prefix + "." + key;
}

JsonReader::JsonReader(const json& j, std::string file, std::string prefix)
    : j_(j), file_(std::move(file)), prefix_(std::move(prefix)) {
  if (!j_.is_object())
    throw InputError(file_, prefix_, value_text(j_), "wrong type: expected an object, got " + type_description(j_));
}

void JsonReader::note_key(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
}

const json* JsonReader::raw(const std::string& key) {
  note_key(key);
  auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

bool JsonReader::has(const std::string& key) {
  const json* v = raw(key);
  return v != nullptr && !v->is_null();
}

JsonReader JsonReader::object(const std::string& key) {
  const json* v = raw(key);
  if (v == nullptr) missing(key);
  if (!v->is_object()) wrong_type(key, *v, "an object");
  return JsonReader(*v, file_, path(key));
}

std::optional<JsonReader> JsonReader::optional_object(const std::string& key) {
  const json* v = raw(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_object()) wrong_type(key, *v, "an object or null");
  return JsonReader(*v, file_, path(key));
}

std::map<std::string, std::string> JsonReader::string_map(const std::string& key) {
  std::map<std::string, std::string> out;
  const json* v = raw(key);
  if (v == nullptr) return out;
  if (!v->is_object()) wrong_type(key, *v, "an object of strings");
  for (const auto& [k, item] : v->items()) {
    if (!item.is_string())
      throw InputError(file_, path(key) + "." + k, value_text(item),
                       "wrong type: expected a string, got " + type_description(item));
    out.emplace(k, item.get<std::string>());
  }
  return out;
}

std::vector<JsonReader> JsonReader::object_array(const std::string& key) {
  const json* v = raw(key);
  if (v == nullptr) missing(key);
  if (!v->is_array()) wrong_type(key, *v, "an array of objects");
  if (v->empty()) fail(key, "the list is empty; give at least one");
  std::vector<JsonReader> out;
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string item_key = key + "[" + std::to_string(i) + "]";
    if (!(*v)[i].is_object()) wrong_type(item_key, (*v)[i], "an object");
    out.emplace_back((*v)[i], file_, path(item_key));
  }
  return out;
}

std::vector<int> JsonReader::int_array(const std::string& key, int min_value) {
  const json* v = raw(key);
  if (v == nullptr) missing(key);
  if (!v->is_array()) wrong_type(key, *v, "an array of integers");
  if (v->empty()) fail(key, "the list is empty; give at least one value");
  std::vector<int> out;
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string item_key = key + "[" + std::to_string(i) + "]";
    int x = 0;
    convert(item_key, (*v)[i], x);
    if (x < min_value)
      throw InputError(file_, path(item_key), value_text((*v)[i]), "must be >= " + std::to_string(min_value));
    out.push_back(x);
  }
  return out;
}

std::vector<double> JsonReader::number_array(const std::string& key, double min_value, double max_value) {
  const json* v = raw(key);
  if (v == nullptr) missing(key);
  if (!v->is_array()) wrong_type(key, *v, "an array of numbers");
  if (v->empty()) fail(key, "the list is empty; give at least one value");
  std::vector<double> out;
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string item_key = key + "[" + std::to_string(i) + "]";
    double x = 0.0;
    convert(item_key, (*v)[i], x);
    if (x < min_value || x > max_value)
      throw InputError(file_, path(item_key), value_text((*v)[i]),
                       "must be in [" + json(min_value).dump() + ", " + json(max_value).dump() + "]");
    out.push_back(x);
  }
  return out;
}

void JsonReader::check(bool ok, const std::string& key, const std::string& problem) const {
  if (!ok) fail(key, problem);
}

void JsonReader::fail(const std::string& key, const std::string& problem) const {
  auto it = j_.find(key);
  throw InputError(file_, path(key), it == j_.end() ? std::string() : value_text(*it), problem);
}

void JsonReader::missing(const std::string& key) const {
  throw InputError(file_, path(key), "", "missing required key");
}

void JsonReader::wrong_type(const std::string& key, const json& v, const std::string& expected) const {
  throw InputError(file_, path(key), value_text(v),
                   "wrong type: expected " + expected + ", got " + type_description(v));
}

void JsonReader::finish() const {
  for (const auto& [key, v] : j_.items()) {
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string valid;
    for (const auto& k : known_) valid += (valid.empty() ? "" : ", ") + k;
    throw InputError(file_, path(key), value_text(v), "unknown key; valid keys: " + valid);
  }
}

void JsonReader::convert(const std::string& key, const json& v, bool& out) const {
  if (!v.is_boolean()) wrong_type(key, v, "a boolean");
  out = v.get<bool>();
}

void JsonReader::convert(const std::string& key, const json& v, std::int64_t& out) const {
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw InputError(file_, path(key), value_text(v), "out of range for a 64-bit integer");
    out = static_cast<std::int64_t>(v.get<std::uint64_t>());
    return;
  }
  if (!v.is_number_integer()) wrong_type(key, v, "an integer");
  out = v.get<std::int64_t>();
}

void JsonReader::convert(const std::string& key, const json& v, int& out) const {
  std::int64_t wide = 0;
  convert(key, v, wide);
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
    throw InputError(file_, path(key), value_text(v), "out of range for a 32-bit integer");
  out = static_cast<int>(wide);
}

void JsonReader::convert(const std::string& key, const json& v, std::uint64_t& out) const {
  if (v.is_number_unsigned()) {
    out = v.get<std::uint64_t>();
    return;
  }
  if (!v.is_number_integer()) wrong_type(key, v, "an integer >= 0");
  const auto signed_value = v.get<std::int64_t>();
  if (signed_value < 0) throw InputError(file_, path(key), value_text(v), "must be an integer >= 0");
  out = static_cast<std::uint64_t>(signed_value);
}

void JsonReader::convert(const std::string& key, const json& v, double& out) const {
  if (!v.is_number()) wrong_type(key, v, "a number");
  out = v.get<double>();
  if (!std::isfinite(out)) throw InputError(file_, path(key), value_text(v), "must be a finite number");
}

void JsonReader::convert(const std::string& key, const json& v, std::string& out) const {
  if (!v.is_string()) wrong_type(key, v, "a string");
  out = v.get<std::string>();
}

}  // namespace fleetcast::specs::detail
