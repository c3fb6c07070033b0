// The sweep's worker processes: fork() one per point, at most `jobs` alive, and collect their point files.
#include "fleetcast/planner/sweep_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::planner {
namespace {

namespace fs = std::filesystem;

fs::path point_file(const fs::path& dir, int index) {
  char name[32];
  std::snprintf(name, sizeof name, "%06d.json", index);
  return dir / "points" / name;
}

nlohmann::json line_for(const SweepPoint& p, nlohmann::json fields) {
  nlohmann::json line = std::move(fields);
  line["point"] = p.index;
  line["parameters"] = p.parameters;
  return line;
}

// The worker: compute, write the point file, and leave without running the parent's destructors or atexit.
[[noreturn]] void run_worker(const SweepPoint& p, const PointWork& work, const fs::path& dir) {
  int code = 0;
  try {
    nlohmann::json fields;
    try {
      fields = work(p);
    } catch (const InputError& e) {
      fields = {{"error", e.what()}, {"input_error", true}};
    } catch (const std::exception& e) {
      fields = {{"error", e.what()}, {"input_error", false}};
    }
    write_file_atomically(point_file(dir, p.index), line_for(p, std::move(fields)).dump() + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fleetcast sweep: point %d: %s\n", p.index, e.what());
    code = 1;
  }
  std::fflush(stderr);
  ::_exit(code);
}

// Lines already finished in `dir` (a previous run of this sweep), checked against this sweep's points.
std::map<int, nlohmann::json> finished_points(const std::vector<SweepPoint>& points, const fs::path& dir) {
  std::map<int, nlohmann::json> done;
  for (const SweepPoint& p : points) {
    const fs::path f = point_file(dir, p.index);
    if (!fs::exists(f)) continue;
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json line = nlohmann::json::parse(text.str(), nullptr, false);
    // A file that does not parse cannot come from a worker (writes are atomic): something else wrote it.
    if (line.is_discarded() || !line.is_object() || !line.contains("parameters")) {
      throw InputError(f.string(), "", "", "not a sweep point file; delete it or use another sweep tag");
    }
    if (line["parameters"] != p.parameters) {
      throw InputError(f.string(), "parameters", line["parameters"].dump(),
                       "this folder holds another sweep (point " + std::to_string(p.index) + " here is " +
                           p.parameters.dump() + "): use another tag or delete the folder");
    }
    done[p.index] = std::move(line);
  }
  return done;
}

void report_progress(bool on, std::size_t done, std::size_t total) {
  if (!on) return;
  std::fprintf(stderr, "{\"phase\": \"sweep\", \"done\": %zu, \"total\": %zu}\n", done, total);
  std::fflush(stderr);
}

}  // namespace

std::string jsonl_text(const std::vector<nlohmann::json>& lines) {
  std::string out;
  for (const nlohmann::json& line : lines) out += line.dump() + "\n";
  return out;
}

void write_file_atomically(const fs::path& path, const std::string& contents) {
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) throw InputError(path.string(), "", "", "cannot write here (does the folder exist?)");
  const bool ok = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size() && std::fflush(f) == 0 &&
                  ::fsync(::fileno(f)) == 0;
  std::fclose(f);
  if (!ok) {
    fs::remove(tmp);
    throw std::runtime_error("writing " + path.string() + " failed");
  }
  fs::rename(tmp, path);
}

SweepOutcome run_sweep(const std::vector<SweepPoint>& points, const PointWork& work, const SweepOptions& options) {
  if (options.jobs < 1) throw InputError("", "-j", std::to_string(options.jobs), "at least 1 worker");
  fs::create_directories(options.dir / "points");
  std::map<int, nlohmann::json> done = finished_points(points, options.dir);

  SweepOutcome out;
  out.total = static_cast<int>(points.size());
  out.resumed = static_cast<int>(done.size());
  const auto rewrite_results = [&] {
    std::vector<nlohmann::json> lines;
    for (const auto& [index, line] : done) lines.push_back(line);
    write_file_atomically(options.dir / "results.jsonl", jsonl_text(lines));
  };
  rewrite_results();
  report_progress(options.progress_json, done.size(), points.size());

  std::map<pid_t, const SweepPoint*> running;
  std::size_t next = 0;
  std::fflush(nullptr);  // a forked child must not write the parent's buffered output again
  while (next < points.size() || !running.empty()) {
    while (next < points.size() && static_cast<int>(running.size()) < options.jobs) {
      const SweepPoint& p = points[next++];
      if (done.count(p.index)) continue;
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
      if (pid == 0) run_worker(p, work, options.dir);
      running[pid] = &p;
    }
    if (running.empty()) break;
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of ours
    const SweepPoint& p = *it->second;
    running.erase(it);
    ++out.computed;
    std::map<int, nlohmann::json> mine = finished_points({p}, options.dir);
    if (mine.empty()) {
      // The worker died before writing its point (a signal, the OOM killer): record that, so the sweep goes on.
      const std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                                  : "exited with status " + std::to_string(WEXITSTATUS(status));
      nlohmann::json line =
          line_for(p, {{"error", "worker process " + why + " before writing its point"}, {"input_error", false}});
      write_file_atomically(point_file(options.dir, p.index), line.dump() + "\n");
      done[p.index] = std::move(line);
    } else {
      done[p.index] = std::move(mine.begin()->second);
    }
    rewrite_results();
    report_progress(options.progress_json, done.size(), points.size());
  }
  for (const auto& [index, line] : done) {
    if (line.contains("error")) ++out.failed;
    out.lines.push_back(line);
  }
  return out;
}

}  // namespace fleetcast::planner
