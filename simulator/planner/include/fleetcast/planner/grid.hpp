#pragma once
// A grid sweep: axes over scenario fields ("deployment.replica.tp" = 1, 2, 4), expanded into points, each point
// the scenario with its fields set. Fields are addressed by dotted paths into the scenario as specs::to_json
// writes it (presets expanded into full objects, every default filled in), so any field can be swept.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fleetcast::planner {

struct GridAxis {
  std::string path;                    // "workload.arrival.rate_per_s"
  std::vector<nlohmann::json> values;  // in the order given
};

// "PATH=V1,V2,..." as `--set` takes it. Each value is read as JSON where it is valid JSON (numbers, true, null,
// "quoted", [lists]) and as a string otherwise, so `router=round_robin,least_kv` needs no quotes. Throws
// InputError naming `--set` for text without '=', an empty path or an empty value list.
GridAxis parse_axis(const std::string& text);

// A sweep file: {"PATH": [V1, V2, ...], ...}; axes in the file's key order. Throws InputError naming `file`.
std::vector<GridAxis> parse_axes_json(const nlohmann::json& j, const std::string& file);

// The Cartesian product in row-major order (the last axis varies fastest): one JSON object per point mapping
// each path to its value. Throws InputError for no axes, an axis given twice or more than 100,000 points.
std::vector<nlohmann::json> expand_grid(const std::vector<GridAxis>& axes);

// `base` with every PATH of `parameters` set to its value. Every object on the path but the last key must exist
// (a typo is an error, not a new field); the last key may be new (an optional block such as
// "deployment.speculative"). Throws InputError naming `file` and the path.
nlohmann::json apply_parameters(nlohmann::json base, const nlohmann::json& parameters, const std::string& file);

}  // namespace fleetcast::planner
