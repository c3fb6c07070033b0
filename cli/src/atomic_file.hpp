#pragma once
// Every file written goes to a temporary name beside the target and is renamed into place, so a crash or
// an error leaves either the old file or the whole new one, never half of one.

#include <filesystem>
#include <string>

namespace fleetcast::cli {

void write_file_atomically(const std::filesystem::path& path, const std::string& contents);

}  // namespace fleetcast::cli
