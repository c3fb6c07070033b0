// Jobs in child processes: every job's output reaches the parent, a job that throws or dies fails alone.
#include <catch2/catch.hpp>
#include <csignal>
#include <map>
#include <stdexcept>

#include "fleetcast/simulator/process_pool.hpp"

using namespace fleetcast;

TEST_CASE("process pool: outputs, exceptions and crashes come back per job", "[validation][process_pool]") {
  std::map<std::size_t, simulator::ChildOutcome> outcomes;
  int calls = 0;
  simulator::run_in_child_processes(
      6, 2,
      [](std::size_t i) -> std::string {
        if (i == 3) throw std::runtime_error("job three failed");
        if (i == 4) std::raise(SIGKILL);
        return std::string(100000 + i, 'a' + static_cast<char>(i));  // larger than a pipe buffer
      },
      [&](std::size_t i, const simulator::ChildOutcome& o) {
        ++calls;
        outcomes[i] = o;
      });
  CHECK(calls == 6);
  for (std::size_t i : {0u, 1u, 2u, 5u}) {
    INFO(i);
    CHECK(outcomes[i].ok);
    CHECK(outcomes[i].output == std::string(100000 + i, 'a' + static_cast<char>(i)));
  }
  CHECK_FALSE(outcomes[3].ok);
  CHECK(outcomes[3].output == "job three failed");
  CHECK_FALSE(outcomes[4].ok);
  CHECK_THAT(outcomes[4].output, Catch::Contains("killed by signal 9"));
}

TEST_CASE("process pool: a job's state never leaks into the parent or the next job", "[validation][process_pool]") {
  static int counter = 0;  // incremented in children only
  std::vector<std::string> outs(4);
  simulator::run_in_child_processes(
      4, 1, [](std::size_t) { return std::to_string(++counter); },
      [&](std::size_t i, const simulator::ChildOutcome& o) { outs[i] = o.output; });
  CHECK(counter == 0);
  CHECK(outs == std::vector<std::string>{"1", "1", "1", "1"});
}
