#pragma once
// Private: reads one JSON object strictly. Every key the parser asks about becomes a valid key; `finish()`
// rejects any other key, listing the valid ones. Integers and floats are told apart: 1.5 is not an int,
// 2 is a fine double. Every error is an InputError with the file, the dotted field path and the value.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "enum_names.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::specs::detail {

using nlohmann::json;

// JSON text of a value for messages, shortened when long.
std::string value_text(const json& v);
// "integer", "floating-point number", "string", ...
std::string type_description(const json& v);
// prefix + "." + key, or key when prefix is empty.
std::string join_path(const std::string& prefix, const std::string& key);

class JsonReader {
public:
  // Throws unless `j` is an object.
  JsonReader(const json& j, std::string file, std::string prefix);

  const std::string& file() const { return file_; }
  const std::string& prefix() const { return prefix_; }
  std::string path(const std::string& key) const { return join_path(prefix_, key); }

  // The raw value of a key (nullptr when absent); marks the key valid.
  const json* raw(const std::string& key);
  // Present and not null; marks the key valid.
  bool has(const std::string& key);

  template <class T>
  T require(const std::string& key) {
    const json* v = raw(key);
    if (v == nullptr) missing(key);
    T out{};
    convert(key, *v, out);
    return out;
  }

  template <class T>
  T optional(const std::string& key, T fallback) {
    const json* v = raw(key);
    if (v == nullptr) return fallback;
    T out{};
    convert(key, *v, out);
    return out;
  }

  // Numbers with a lower bound (inclusive).
  template <class T>
  T require_at_least(const std::string& key, T min_value) {
    T v = require<T>(key);
    check(v >= min_value, key, "must be >= " + json(min_value).dump());
    return v;
  }

  template <class T>
  T optional_at_least(const std::string& key, T fallback, T min_value) {
    T v = optional<T>(key, fallback);
    check(v >= min_value, key, "must be >= " + json(min_value).dump());
    return v;
  }

  // Numbers > 0.
  double require_positive(const std::string& key) {
    double v = require<double>(key);
    check(v > 0, key, "must be > 0");
    return v;
  }

  double optional_positive(const std::string& key, double fallback) {
    double v = optional<double>(key, fallback);
    check(v > 0, key, "must be > 0");
    return v;
  }

  template <class E, std::size_t N>
  E require_enum(const std::string& key, const EnumNames<E, N>& table) {
    return to_enum(key, require<std::string>(key), table);
  }

  template <class E, std::size_t N>
  E optional_enum(const std::string& key, E fallback, const EnumNames<E, N>& table) {
    if (raw(key) == nullptr) return fallback;
    return require_enum(key, table);
  }

  // A nested object; `optional_object` also takes null as absent.
  JsonReader object(const std::string& key);
  std::optional<JsonReader> optional_object(const std::string& key);
  // A string-to-string object such as `assumed`; absent: empty.
  std::map<std::string, std::string> string_map(const std::string& key);
  // A non-empty array of objects, each read at the path `key[i]`.
  std::vector<JsonReader> object_array(const std::string& key);
  // A non-empty array of ints, each >= min_value.
  std::vector<int> int_array(const std::string& key, int min_value);
  // A non-empty array of numbers, each in [min_value, max_value].
  std::vector<double> number_array(const std::string& key, double min_value, double max_value);

  // Throws InputError for `key` (its value when present) unless `ok`.
  void check(bool ok, const std::string& key, const std::string& problem) const;
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  [[noreturn]] void missing(const std::string& key) const;

  // Rejects keys that no one asked about.
  void finish() const;

private:
  template <class E, std::size_t N>
  E to_enum(const std::string& key, const std::string& text, const EnumNames<E, N>& table) const {
    auto v = value_of(table, text);
    if (!v) fail(key, "unknown value; valid: " + valid_names(table));
    return *v;
  }

  void convert(const std::string& key, const json& v, bool& out) const;
  void convert(const std::string& key, const json& v, int& out) const;
  void convert(const std::string& key, const json& v, std::int64_t& out) const;
  void convert(const std::string& key, const json& v, std::uint64_t& out) const;
  void convert(const std::string& key, const json& v, double& out) const;
  void convert(const std::string& key, const json& v, std::string& out) const;
  [[noreturn]] void wrong_type(const std::string& key, const json& v, const std::string& expected) const;
  void note_key(const std::string& key);

  const json& j_;
  std::string file_;
  std::string prefix_;
  std::vector<std::string> known_;  // in the order asked, for messages
};

}  // namespace fleetcast::specs::detail
