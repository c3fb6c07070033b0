// Transfers through SimGrid on the platform of a profile with network factors (docs/CALIBRATION.md, "Network
// factors"): each measured size takes the measured time within the fit's tolerance, sizes beyond the measured
// range stay on the fitted trend, and a profile without factors leaves a transfer at exactly the route's
// latency + bytes / bandwidth. One SimGrid simulation per process: each case runs in a forked child.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <simgrid/s4u.hpp>

#include "../calibration/synthetic_trace.hpp"
#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/simulator/platform.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;
namespace sg4 = simgrid::s4u;

namespace {

int in_child(const std::function<int()>& check) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) _exit(check());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

// Two H100 nodes of 8 GPUs: GPU 0 -> 1 crosses NVLink, GPU 0 -> 8 NIC, fabric, NIC.
specs::DeploymentSpec two_h100_nodes() {
  specs::DeploymentSpec d;
  d.hardware = specs::hardware_preset("h100");
  d.nodes = 2;
  d.gpus_per_node = 8;
  d.replica = {8, 1, 8};
  return d;
}

// Simulated seconds of each transfer of `sizes` from GPU `from` to GPU `to`, one after the other, alone on the
// platform of `profile`.
std::vector<double> simulate_transfers(const calibration::Profile& profile, int from, int to,
                                       const std::vector<double>& sizes) {
  // As simulator/src/simulation.cpp starts its engine.
  int argc = 3;
  char arg0[] = "t", log[] = "--log=root.thresh:critical", net[] = "--cfg=network/model:CM02";
  char* argv[] = {arg0, log, net, nullptr};
  sg4::Engine e(&argc, argv);
  const auto p = simulator::build_platform(two_h100_nodes(), profile);
  std::vector<double> took;
  auto* mb = sg4::Mailbox::by_name("transfer");
  sg4::Actor::create("receiver", p.gpus[static_cast<std::size_t>(to)], [mb, &sizes] {
    for (std::size_t i = 0; i < sizes.size(); ++i) delete mb->get<int>();
  });
  sg4::Actor::create("sender", p.gpus[static_cast<std::size_t>(from)], [mb, &sizes, &took] {
    for (double bytes : sizes) {
      const double start = sg4::Engine::get_clock();
      mb->put(new int(0), static_cast<std::uint64_t>(bytes));
      took.push_back(sg4::Engine::get_clock() - start);
    }
  });
  e.run();
  return took;
}

double ape(double predicted, double measured) { return std::abs(predicted / measured - 1.0); }

int report(bool bad, const char* what, double bytes, double simulated, double expected) {
  if (bad) std::fprintf(stderr, "%s: %.0f bytes simulated %.6g s, expected %.6g s\n", what, bytes, simulated, expected);
  return bad ? 1 : 0;
}

calibration::Profile fitted_profile(const traces::CalibrationTrace& t) {
  return calibration::fit_profile({calibration::fit_input_from_text(traces::to_jsonl(t), "t.jsonl")}, {});
}

}  // namespace

TEST_CASE("SimGrid transfers over NVLink with fitted factors take the measured times", "[platform][network]") {
  const test::TransferCurve curve;
  const auto trace = test::send_recv_trace("NVIDIA H100 80GB HBM3", curve, 2, 0.02, 7);
  const auto profile = fitted_profile(trace);
  REQUIRE(profile.network_factors.size() == 1);
  std::vector<double> sizes, measured;
  for (const auto& m : trace.measurements) {
    sizes.push_back(m.shape.at("bytes").get<double>());
    measured.push_back(m.median_s);
  }
  const std::size_t in_range = sizes.size();
  for (double beyond : {1073741824.0, 4294967296.0}) sizes.push_back(beyond);
  const int failures = in_child([&] {
    const auto took = simulate_transfers(profile, 0, 1, sizes);
    if (took.size() != sizes.size()) return 99;
    const auto& f = profile.network_factors[0];
    int bad = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      // SimGrid applies the factors as fitted (to rounding): the fit's own arithmetic is what runs.
      bad += report(ape(took[i], f.transfer_time_s(sizes[i])) > 1e-6, "factored route", sizes[i], took[i],
                    f.transfer_time_s(sizes[i]));
      // Within the measured range: the measured time within 7% (tests/calibration/test_network_factors.cpp
      // says why); beyond it: the true curve within 5%.
      if (i < in_range)
        bad += report(ape(took[i], measured[i]) > 0.07, "measured", sizes[i], took[i], measured[i]);
      else
        bad += report(ape(took[i], curve.time_s(sizes[i])) > 0.05, "trend", sizes[i], took[i], curve.time_s(sizes[i]));
    }
    return bad;
  });
  CHECK(failures == 0);
}

TEST_CASE("SimGrid transfers between nodes with fitted NIC factors take the measured times", "[platform][network]") {
  test::TransferCurve curve;
  curve.latency_s = 20e-6;
  curve.bytes_per_s = 50e9;
  const auto trace = test::send_recv_trace("NVIDIA H100 80GB HBM3", curve, 16, 0.02, 3);
  const auto profile = fitted_profile(trace);
  REQUIRE(profile.network_factors.size() == 1);
  std::vector<double> sizes, measured;
  for (const auto& m : trace.measurements) {
    sizes.push_back(m.shape.at("bytes").get<double>());
    measured.push_back(m.median_s);
  }
  // GPU 0 of node 0 to GPU 0 of node 1 over the NIC.
  CHECK(in_child([&] {
          const auto took = simulate_transfers(profile, 0, 8, sizes);
          int bad = 0;
          for (std::size_t i = 0; i < sizes.size(); ++i)
            bad += report(ape(took[i], measured[i]) > 0.07, "measured", sizes[i], took[i], measured[i]);
          return bad;
        }) == 0);
  // GPU 0 to 1 stays on NVLink, for which this profile has no factors: the plain route.
  CHECK(in_child([&] {
          const auto took = simulate_transfers(profile, 0, 1, {1048576.0});
          const double plain = 2e-6 + 1048576.0 / (450e9 * profile.nvlink_efficiency);
          return report(ape(took[0], plain) > 1e-9, "nvlink without factors", 1048576.0, took[0], plain);
        }) == 0);
}

TEST_CASE("without network factors a transfer takes the route's latency + bytes / bandwidth", "[platform][network]") {
  const auto profile = calibration::datasheet_profile(specs::hardware_preset("h100"), "vllm");
  REQUIRE(profile.network_factors.empty());
  const std::vector<double> sizes = {1024.0, 1048576.0, 1073741824.0};
  CHECK(in_child([&] {
          const auto took = simulate_transfers(profile, 0, 1, sizes);
          int bad = 0;
          for (std::size_t i = 0; i < sizes.size(); ++i) {
            const double nv = 2e-6 + sizes[i] / (450e9 * profile.nvlink_efficiency);
            bad += report(ape(took[i], nv) > 1e-9, "nvlink", sizes[i], took[i], nv);
          }
          return bad;
        }) == 0);
  CHECK(in_child([&] {
          const auto took = simulate_transfers(profile, 0, 8, sizes);
          int bad = 0;
          for (std::size_t i = 0; i < sizes.size(); ++i) {
            const double ni = 4e-6 + sizes[i] / (50e9 * profile.nic_efficiency);
            bad += report(ape(took[i], ni) > 1e-9, "nic", sizes[i], took[i], ni);
          }
          return bad;
        }) == 0);
}
