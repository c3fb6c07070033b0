#include "atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::cli {

void write_file_atomically(const std::filesystem::path& path, const std::string& contents) {
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) throw InputError(path.string(), "", "", "cannot write here (does the folder exist?)");
  const bool ok = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size() && std::fflush(f) == 0 &&
                  ::fsync(::fileno(f)) == 0;
  std::fclose(f);
  if (!ok) {
    std::filesystem::remove(tmp);
    throw std::runtime_error("writing " + path.string() + " failed");
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace fleetcast::cli
