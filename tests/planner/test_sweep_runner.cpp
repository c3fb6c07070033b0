// The sweep runner: one worker process per point, results sorted by point, failed points recorded, and a sweep
// killed with SIGKILL resumed without rerunning finished points, ending with the same bytes.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "fleetcast/planner/sweep_runner.hpp"
#include "fleetcast/specs/error.hpp"

using namespace fleetcast;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("fleetcast-sweep-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<planner::SweepPoint> points(int n) {
  std::vector<planner::SweepPoint> p;
  for (int i = 0; i < n; ++i) p.push_back({i, {{"k", i}}});
  return p;
}

// Work that appends "<index>\n" to `log` (one write with O_APPEND: lines from parallel workers never mix), sleeps
// `ms` milliseconds in the points' reverse order (so workers finish out of order) and returns k squared.
planner::PointWork logged_work(const fs::path& log, int ms) {
  return [log, ms](const planner::SweepPoint& p) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    const std::string line = std::to_string(p.index) + "\n";
    if (::write(fd, line.data(), line.size()) < 0) throw std::runtime_error("log");
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms * (1 + (20 - p.index) % 3)));
    const int k = p.parameters["k"].get<int>();
    return nlohmann::json{{"value", k * k}};
  };
}

std::multiset<int> runs(const fs::path& log) {
  std::multiset<int> out;
  for (const std::string& l : lines_of(read(log))) out.insert(std::stoi(l));
  return out;
}

}  // namespace

TEST_CASE("results are one line per point, sorted by point, whatever order workers finish in", "[planner]") {
  const fs::path dir = fresh_dir("sorted");
  const auto out = planner::run_sweep(points(7), logged_work(dir / "log", 20), {.dir = dir / "s", .jobs = 3});
  CHECK(out.total == 7);
  CHECK(out.computed == 7);
  CHECK(out.resumed == 0);
  CHECK(out.failed == 0);
  const auto lines = lines_of(read(dir / "s" / "results.jsonl"));
  REQUIRE(lines.size() == 7);
  for (int i = 0; i < 7; ++i) {
    const auto j = nlohmann::json::parse(lines[i]);
    CHECK(j["point"] == i);
    CHECK(j["parameters"]["k"] == i);
    CHECK(j["value"] == i * i);  // computed in the worker and carried back through its point file
  }
  // Each point ran once, each in a process of its own.
  CHECK(runs(dir / "log") == std::multiset<int>{0, 1, 2, 3, 4, 5, 6});
}

TEST_CASE("a failing point is recorded with its error and the others complete", "[planner]") {
  const fs::path dir = fresh_dir("failing");
  const planner::PointWork work = [](const planner::SweepPoint& p) -> nlohmann::json {
    if (p.index == 1) throw InputError("f", "deployment.replica.tp", "3", "does not divide the heads");
    if (p.index == 2) throw std::runtime_error("the model does not fit");
    if (p.index == 3) ::kill(::getpid(), SIGKILL);  // a worker that dies without a word
    return {{"value", p.index}};
  };
  const auto out = planner::run_sweep(points(5), work, {.dir = dir, .jobs = 2});
  CHECK(out.failed == 3);
  REQUIRE(out.lines.size() == 5);
  CHECK(out.lines[0]["value"] == 0);
  CHECK(out.lines[1]["input_error"] == true);
  CHECK(out.lines[1]["error"].get<std::string>().find("deployment.replica.tp") != std::string::npos);
  CHECK(out.lines[2]["input_error"] == false);
  CHECK(out.lines[2]["error"] == "the model does not fit");
  CHECK(out.lines[3]["error"] == "worker process killed by signal 9 before writing its point");
  CHECK(out.lines[4]["value"] == 4);
  CHECK(lines_of(read(dir / "results.jsonl")).size() == 5);
}

TEST_CASE("a sweep killed with SIGKILL resumes without rerunning finished points, ending byte-identical", "[planner]") {
  const int n = 12;
  const fs::path dir = fresh_dir("resume");
  // The reference: one uninterrupted run.
  planner::run_sweep(points(n), logged_work(dir / "reference.log", 5), {.dir = dir / "reference", .jobs = 2});
  const std::string reference = read(dir / "reference" / "results.jsonl");
  REQUIRE(lines_of(reference).size() == n);

  // The same sweep in a child process (its own process group, workers included), killed once 4 points are in.
  const fs::path sweep_dir = dir / "killed", log = dir / "killed.log";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::setpgid(0, 0);
    planner::run_sweep(points(n), logged_work(log, 60), {.dir = sweep_dir, .jobs = 2});
    ::_exit(0);
  }
  ::setpgid(child, child);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (lines_of(read(sweep_dir / "results.jsonl")).size() < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(-child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  // Orphaned workers of the group are killed too; give the kernel a moment to reap them.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  std::set<int> finished;
  for (const std::string& l : lines_of(read(sweep_dir / "results.jsonl")))
    finished.insert(nlohmann::json::parse(l)["point"].get<int>());
  for (const auto& f : fs::directory_iterator(sweep_dir / "points"))
    if (f.path().extension() == ".json") finished.insert(std::stoi(f.path().stem().string()));
  REQUIRE(finished.size() >= 4);
  REQUIRE(finished.size() < static_cast<std::size_t>(n));  // it was stopped mid-way
  const std::size_t runs_before = runs(log).size();

  const auto out = planner::run_sweep(points(n), logged_work(log, 5), {.dir = sweep_dir, .jobs = 2});
  CHECK(out.resumed == static_cast<int>(finished.size()));
  CHECK(out.computed == n - static_cast<int>(finished.size()));
  // The resumed run's worker runs (the log lines after runs_before) are exactly the unfinished points.
  std::multiset<int> resumed_runs;
  const auto all = lines_of(read(log));
  for (std::size_t i = runs_before; i < all.size(); ++i) resumed_runs.insert(std::stoi(all[i]));
  std::multiset<int> expected;
  for (int i = 0; i < n; ++i)
    if (!finished.count(i)) expected.insert(i);
  CHECK(resumed_runs == expected);
  CHECK(read(sweep_dir / "results.jsonl") == reference);
}

TEST_CASE("a folder holding another sweep is refused", "[planner]") {
  const fs::path dir = fresh_dir("other");
  planner::run_sweep(points(2), logged_work(dir / "log", 1), {.dir = dir / "s"});
  std::vector<planner::SweepPoint> other = {{0, {{"k", 5}}}};
  CHECK_THROWS_WITH(planner::run_sweep(other, logged_work(dir / "log", 1), {.dir = dir / "s"}),
                    Catch::Contains("another sweep"));
  CHECK_THROWS_AS(planner::run_sweep(points(1), logged_work(dir / "log", 1), {.dir = dir / "t", .jobs = 0}),
                  InputError);
}
