#include "fleetcast/simulator/process_pool.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

namespace fleetcast::simulator {
namespace {

struct Child {
  std::size_t index = 0;
  pid_t pid = -1;
  int fd = -1;
  std::string output;
};

void write_all(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

Child start(std::size_t index, const std::function<std::string(std::size_t)>& job) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  // Buffered output would otherwise be written twice, by the parent and again by the child.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    int code = 0;
    std::string out;
    try {
      out = job(index);
    } catch (const std::exception& e) {
      out = e.what();
      code = 1;
    }
    write_all(fds[1], out);
    ::close(fds[1]);
    ::_exit(code);  // skip atexit handlers and the destructors of the parent's state
  }
  ::close(fds[1]);
  return {index, pid, fds[0], {}};
}

ChildOutcome finish(Child& c) {
  ::close(c.fd);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {true, std::move(c.output)};
  std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                        : "exit status " + std::to_string(WEXITSTATUS(status));
  return {false, c.output.empty() ? "child process died (" + why + ")" : c.output};
}

}  // namespace

void run_in_child_processes(std::size_t count, int parallel, const std::function<std::string(std::size_t)>& job,
                            const std::function<void(std::size_t, const ChildOutcome&)>& done) {
  const std::size_t slots = static_cast<std::size_t>(parallel < 1 ? 1 : parallel);
  std::vector<Child> running;
  std::size_t next = 0;
  while (next < count || !running.empty()) {
    while (next < count && running.size() < slots) running.push_back(start(next++, job));
    std::vector<pollfd> fds;
    for (const Child& c : running) fds.push_back({c.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (std::size_t i = running.size(); i-- > 0;) {
      if (fds[i].revents == 0) continue;
      char buf[1 << 16];
      const ssize_t n = ::read(running[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        running[i].output.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      Child c = std::move(running[i]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      done(c.index, finish(c));
    }
  }
}

}  // namespace fleetcast::simulator
