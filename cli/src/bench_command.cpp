// `fleetcast bench sim`: how fast the simulator runs. Prints figures; asserts nothing about wall time.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include "commands.hpp"
#include "fleetcast/simulator/report.hpp"
#include "fleetcast/simulator/simulation.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::cli {

int run_bench(const Args& args) {
  if (args.empty() || args[0] != "sim") throw InputError("", "bench", args.empty() ? "" : args[0], "valid: sim");
  long long requests = 1000000;
  int replicas = 16;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--requests" && i + 1 < args.size()) {
      requests = std::stoll(args[++i]);
    } else if (args[i] == "--replicas" && i + 1 < args.size()) {
      replicas = std::stoi(args[++i]);
    } else {
      throw InputError("", "bench sim", args[i], "valid: --requests N, --replicas N");
    }
  }
  nlohmann::json j = specs::preset_json(specs::PresetKind::scenario, "bench-sim");
  j["num_requests"] = requests;
  j["deployment"]["nodes"] = replicas;  // one GPU per replica in this preset: nodes x 1 GPU
  const specs::ScenarioSpec scenario = specs::parse_scenario(j, "preset:scenario/bench-sim");

  const auto start = std::chrono::steady_clock::now();
  const nlohmann::json report = simulator::simulate(scenario);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double peak_rss_mb = usage.ru_maxrss / 1024.0;

  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  // A context header as google/benchmark writes one: where and with what the figures were taken.
  const nlohmann::json context = {{"date", date},
                                  {"host_name", host},
                                  {"num_cpus", std::thread::hardware_concurrency()},
                                  {"simulator", simulator::version_string()},
                                  {"command", "fleetcast bench sim --requests " + std::to_string(requests) +
                                                  " --replicas " + std::to_string(replicas)}};
  const nlohmann::json result = {
      {"context", context},
      {"benchmark", "sim"},
      {"requests", requests},
      {"replicas", replicas},
      {"simulated_seconds", report["measurement"]["window_end_s"]},
      {"steps", report["measurement"]["total_steps"]},
      {"wall_s", wall_s},
      {"requests_per_wall_s", requests / wall_s},
      {"peak_rss_mb", peak_rss_mb},
      {"gpu_busy_share", report["metrics"]["gpu_busy_share"]},
  };
  std::printf("%s\n", result.dump(2).c_str());
  return 0;
}

}  // namespace fleetcast::cli
