// Runs fleetcast-png beside the fleetcast binary (png_export.hpp).
#include "png_export.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

extern char** environ;

namespace fleetcast::cli {

namespace fs = std::filesystem;

PngExport export_png_beside_cli(const fs::path& svg, const fs::path& png) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path renderer = ec ? fs::path() : self.parent_path() / "fleetcast-png";
  if (renderer.empty() || access(renderer.c_str(), X_OK) != 0)
    return {false, "SVG only: no fleetcast-png beside fleetcast (it is built where Qt 6 Gui and Svg are found)"};
  std::string program = renderer.string(), in = svg.string(), out = png.string();
  std::vector<char*> argv{program.data(), in.data(), out.data(), nullptr};
  // posix_spawn, not fork: rank 0 of an MPI sweep may call this, and OpenMPI dislikes fork.
  pid_t pid = 0;
  if (const int err = posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ); err != 0)
    return {false, "SVG only: could not start " + program + ": " + std::strerror(err)};
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return {false, "SVG only: lost " + program + ": " + std::strerror(errno)};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {true, ""};
  return {false, "SVG only: " + program +
                     (WIFEXITED(status) ? " exited with code " + std::to_string(WEXITSTATUS(status))
                                        : " was stopped by signal " + std::to_string(WTERMSIG(status)))};
}

}  // namespace fleetcast::cli
