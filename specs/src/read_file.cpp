// Files -> JSON and scenarios: a missing file or broken JSON is an InputError naming the file and position.

#include <fstream>
#include <string_view>

#include "fleetcast/specs/load.hpp"

namespace fleetcast::specs {

namespace {

// nlohmann's message without its "[json.exception.parse_error.101] " tag; it already names line and column.
std::string parse_error_text(const nlohmann::json::parse_error& e) {
  std::string_view what = e.what();
  if (!what.empty() && what.front() == '[') {
    const auto close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

}  // namespace

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path.string(), "", "", "cannot open file: is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "", "cannot open file");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path.string(), "", "",
                     "invalid JSON at byte " + std::to_string(e.byte) + ": " + parse_error_text(e));
  }
}

ScenarioSpec load_scenario(const std::filesystem::path& path) {
  const nlohmann::json j = read_json_file(path);
  std::filesystem::path base_dir = path.parent_path();
  if (base_dir.empty()) base_dir = ".";
  return parse_scenario(j, path.string(), base_dir);
}

}  // namespace fleetcast::specs
