// fork() a child per simulation: SimGrid's engine is a per-process singleton whose clock would silently
// carry over into a second simulation in the same process.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::simulator {
namespace {

void write_all(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

SimulationResult run_simulation_in_child(const specs::ScenarioSpec& scenario, const RunOptions& options) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  // Buffered output would otherwise be written twice, by the parent and again by the child.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    nlohmann::json reply;
    try {
      SimulationResult result = run_simulation(scenario, options);
      reply = {{"report", std::move(result.report)}, {"chrome_trace", std::move(result.chrome_trace)}};
    } catch (const InputError& e) {
      reply = {{"input_error", {e.file(), e.field(), e.value(), e.problem()}}};
    } catch (const std::exception& e) {
      reply = {{"error", e.what()}};
    }
    write_all(fds[1], reply.dump());
    ::close(fds[1]);
    ::_exit(0);  // skip atexit handlers and destructors of the parent's state
  }
  ::close(fds[1]);
  const std::string text = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    throw std::runtime_error("simulation child process died (status " + std::to_string(status) + ")");
  }
  const auto reply = nlohmann::json::parse(text);
  if (reply.contains("input_error")) {
    const auto& e = reply["input_error"];
    throw InputError(e[0].get<std::string>(), e[1].get<std::string>(), e[2].get<std::string>(),
                     e[3].get<std::string>());
  }
  if (reply.contains("error")) throw std::runtime_error(reply["error"].get<std::string>());
  return {reply["report"], reply["chrome_trace"].get<std::string>()};
}

}  // namespace fleetcast::simulator
