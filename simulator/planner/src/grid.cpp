#include "fleetcast/planner/grid.hpp"

#include <set>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::planner {
namespace {

constexpr std::size_t kMaxPoints = 100000;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

nlohmann::json value_of(const std::string& text) {
  nlohmann::json v = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return v.is_discarded() ? nlohmann::json(text) : v;
}

}  // namespace

GridAxis parse_axis(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError("", "--set", text, "expected PATH=V1,V2,... (e.g. deployment.replica.tp=1,2,4)");
  }
  GridAxis axis{text.substr(0, eq), {}};
  // A JSON list value may hold commas: split on commas outside brackets and quotes.
  const std::string values = text.substr(eq + 1);
  int depth = 0;
  bool quoted = false;
  std::string current;
  for (char ch : values + ",") {
    if (ch == '"') quoted = !quoted;
    if (!quoted && (ch == '[' || ch == '{')) ++depth;
    if (!quoted && (ch == ']' || ch == '}')) --depth;
    if (ch == ',' && depth == 0 && !quoted) {
      if (current.empty()) throw InputError("", "--set " + axis.path, values, "an empty value in the list");
      axis.values.push_back(value_of(current));
      current.clear();
    } else {
      current += ch;
    }
  }
  return axis;
}

std::vector<GridAxis> parse_axes_json(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object() || j.empty()) {
    throw InputError(file, "", "",
                     "a sweep file is a JSON object {\"PATH\": [V1, V2, ...], ...} with one axis or more");
  }
  std::vector<GridAxis> axes;
  for (const auto& [path, values] : j.items()) {
    if (!values.is_array() || values.empty()) {
      throw InputError(file, path, values.dump(), "expected a non-empty list of values");
    }
    axes.push_back({path, std::vector<nlohmann::json>(values.begin(), values.end())});
  }
  return axes;
}

std::vector<nlohmann::json> expand_grid(const std::vector<GridAxis>& axes) {
  if (axes.empty()) throw InputError("", "--set", "", "a grid sweep needs at least one axis: --set PATH=V1,V2,...");
  std::set<std::string> seen;
  std::size_t count = 1;
  for (const GridAxis& a : axes) {
    if (!seen.insert(a.path).second) throw InputError("", "--set", a.path, "the same field is swept twice");
    if (a.values.empty()) throw InputError("", "--set " + a.path, "", "no values");
    count *= a.values.size();
    if (count > kMaxPoints) throw InputError("", "--set", std::to_string(count), "more than 100,000 points");
  }
  std::vector<nlohmann::json> points;
  std::vector<std::size_t> at(axes.size(), 0);
  for (std::size_t n = 0; n < count; ++n) {
    nlohmann::json p = nlohmann::json::object();
    for (std::size_t k = 0; k < axes.size(); ++k) p[axes[k].path] = axes[k].values[at[k]];
    points.push_back(std::move(p));
    for (std::size_t k = axes.size(); k-- > 0;) {  // odometer: the last axis turns fastest
      if (++at[k] < axes[k].values.size()) break;
      at[k] = 0;
    }
  }
  return points;
}

nlohmann::json apply_parameters(nlohmann::json base, const nlohmann::json& parameters, const std::string& file) {
  for (const auto& [path, value] : parameters.items()) {
    const std::vector<std::string> keys = split(path, '.');
    nlohmann::json* node = &base;
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
      if (!node->is_object() || !node->contains(keys[i])) {
        throw InputError(file, path, value.dump(),
                         "the scenario has no object '" + keys[i] +
                             "' on this path (fields are those of the "
                             "scenario with every default filled in)");
      }
      node = &(*node)[keys[i]];
    }
    if (!node->is_object() || keys.back().empty()) {
      throw InputError(file, path, value.dump(), "the path does not end in a field of an object");
    }
    (*node)[keys.back()] = value;
  }
  return base;
}

}  // namespace fleetcast::planner
