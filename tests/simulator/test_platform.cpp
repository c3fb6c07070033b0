// The SimGrid platform built from a deployment: hosts per GPU and routes by NVLink domain and NIC rail.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/platform.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;
namespace sg4 = simgrid::s4u;

namespace {

// Runs `check` in a forked child with its own SimGrid engine; returns the number of failed checks.
int in_child(const std::function<int(sg4::Engine&)>& check) {
  const pid_t pid = fork();
  if (pid == 0) {
    int argc = 1;
    char arg0[] = "t";
    char* argv[] = {arg0, nullptr};
    sg4::Engine e(&argc, argv);
    _exit(check(e));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

std::vector<std::string> route(sg4::Host* a, sg4::Host* b) {
  std::vector<sg4::Link*> links;
  double latency = 0.0;
  a->route_to(b, links, &latency);
  std::vector<std::string> names;
  for (auto* l : links) names.push_back(l->get_name());
  return names;
}

// Two 8-GPU nodes of `hw`, one TP8 replica on each.
specs::DeploymentSpec two_nodes(const std::string& hw) {
  specs::DeploymentSpec d;
  d.hardware = specs::hardware_preset(hw);
  d.nodes = 2;
  d.gpus_per_node = 8;
  d.replica = {8, 1, 8};
  return d;
}

}  // namespace

TEST_CASE("two HGX nodes: NVLink inside a node, the NIC rail between nodes", "[platform]") {
  const int failures = in_child([](sg4::Engine& e) {
    const specs::DeploymentSpec d = two_nodes("b200");
    const auto p = simulator::build_platform(d, calibration::datasheet_profile(d.hardware, "vllm"));
    int bad = 0;
    bad += p.gpus.size() != 16;
    bad += p.replicas.size() != 2 || p.replicas[1][0] != p.gpus[8];
    bad += e.get_host_count() != 17;  // the frontend too
    const auto intra = route(p.gpus[0], p.gpus[3]);
    bad += intra.size() != 2 || intra[0].find("node0.gpu0.nvlink") != 0 || intra[1].find("node0.gpu3.nvlink") != 0;
    const auto inter = route(p.gpus[2], p.gpus[10]);
    bad += inter.size() != 3 || inter[0].find("node0.gpu2.nic") != 0 || inter[1] != "fabric" ||
           inter[2].find("node1.gpu2.nic") != 0;
    // NVLink runs at one direction of 1,800 GB/s x the profile's efficiency.
    bad += std::abs(sg4::Link::by_name("node0.gpu0.nvlink_UP")->get_bandwidth() - 900e9 * 0.82) > 1.0;
    return bad;
  });
  CHECK(failures == 0);
}

TEST_CASE("a mesh node joins each pair of GPUs by its own link, one seventh of a GPU's bandwidth", "[platform]") {
  const int failures = in_child([](sg4::Engine&) {
    specs::DeploymentSpec d = two_nodes("h100");
    d.hardware.scale_up_topology = "mesh";
    const auto p = simulator::build_platform(d, calibration::datasheet_profile(d.hardware, "vllm"));
    int bad = 0;
    // Inside a node: the pair's own link, not the GPUs' shared ones; between nodes the NIC rail as before.
    const auto intra = route(p.gpus[0], p.gpus[3]);
    bad += intra.size() != 1 || intra[0].find("node0.gpu0-node0.gpu3.link") != 0;
    const auto back = route(p.gpus[3], p.gpus[0]);
    bad += back.size() != 1 || back[0].find("node0.gpu0-node0.gpu3.link") != 0;
    bad += route(p.gpus[2], p.gpus[10]).size() != 3;
    // One of seven links: 450 GB/s one way / 7 x the profile's efficiency.
    const double link = sg4::Link::by_name("node0.gpu0-node0.gpu3.link_UP")->get_bandwidth();
    bad += std::abs(link - 450e9 / 7 * 0.82) > 1.0;
    return bad;
  });
  CHECK(failures == 0);
}
