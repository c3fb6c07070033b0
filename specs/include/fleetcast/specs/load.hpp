#pragma once
// JSON -> specs, with full validation. Every function throws fleetcast::InputError naming the file, the
// field path, the value and what is valid. `file` is only used in messages; `prefix` is the field path of
// the object within that file ("" at the top level, "deployment" for an embedded deployment).

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::specs {

ModelSpec parse_model(const nlohmann::json& j, const std::string& file, const std::string& prefix = "");
HardwareSpec parse_hardware(const nlohmann::json& j, const std::string& file, const std::string& prefix = "");
// `base_dir` resolves relative paths inside the spec (a hardware given as a file).
DeploymentSpec parse_deployment(const nlohmann::json& j, const std::string& file, const std::string& prefix = "",
                                const std::filesystem::path& base_dir = ".");
WorkloadSpec parse_workload(const nlohmann::json& j, const std::string& file, const std::string& prefix = "");
ScenarioSpec parse_scenario(const nlohmann::json& j, const std::string& file,
                            const std::filesystem::path& base_dir = ".");

// Reads and parses a file; a missing file or invalid JSON is an InputError naming the file (and line).
nlohmann::json read_json_file(const std::filesystem::path& path);
ScenarioSpec load_scenario(const std::filesystem::path& path);

// Specs -> JSON, the exact inverse of parse_* (parse(to_json(x)) == x): what reports echo.
nlohmann::json to_json(const ModelSpec& m);
nlohmann::json to_json(const HardwareSpec& h);
nlohmann::json to_json(const DeploymentSpec& d);
nlohmann::json to_json(const WorkloadSpec& w);
nlohmann::json to_json(const LengthDistribution& l);
nlohmann::json to_json(const ScenarioSpec& s);

}  // namespace fleetcast::specs
