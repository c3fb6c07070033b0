// Benchmark records' field readers (bench_fields.hpp).
#include "bench_fields.hpp"

#include <limits>

#include "fleetcast/specs/number_text.hpp"

namespace fleetcast::traces::detail {

using nlohmann::json;

std::string quote_python_specials(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const auto& [word, as_string] :
         {std::pair{"-Infinity", "\"-inf\""}, std::pair{"Infinity", "\"inf\""}, std::pair{"NaN", "\"nan\""}}) {
      const std::string w = word;
      if (text.compare(i, w.size(), w) == 0) {
        out += as_string;
        i += w.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

std::string shown(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::variant<std::optional<double>, BadField> number(const json& r, const char* key) {
  const auto it = r.find(key);
  if (it == r.end() || it->is_null()) return std::optional<double>{};
  if (it->is_number()) return std::optional<double>{it->get<double>()};
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    if (s == "inf") return std::optional<double>{std::numeric_limits<double>::infinity()};
    // vLLM's --metadata values are strings: "tp": "8".
    if (const auto v = whole_text_number(s)) return v;
  }
  return BadField{key, shown(*it), "not a number"};
}

std::string text(const json& r, const char* key) {
  const auto it = r.find(key);
  if (it == r.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace fleetcast::traces::detail
