#pragma once
// The field readers of a benchmark client's JSON record (bench_results.cpp, bench_parts.cpp): numbers as Python's json
// writes them, text, and the bad field a record is skipped for.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

namespace fleetcast::traces::detail {

struct BadField {
  std::string field, value, reason;
};

// Python's json writes inf and nan as the bare words Infinity, -Infinity and NaN, which JSON does not have:
// outside strings they become the strings "inf", "-inf" and "nan" that the field readers accept.
std::string quote_python_specials(const std::string& text);

// A value as the file wrote it (a string without its quotes).
std::string shown(const nlohmann::json& v);

// A number, or one of the strings the specials became; nullopt when absent or null.
std::variant<std::optional<double>, BadField> number(const nlohmann::json& r, const char* key);

// A key's text ("" when absent or null; a number's JSON text).
std::string text(const nlohmann::json& r, const char* key);

}  // namespace fleetcast::traces::detail
