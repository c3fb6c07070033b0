#include "fleetcast/simulator/platform.hpp"

#include <string>

namespace fleetcast::simulator {

namespace sg4 = simgrid::s4u;

Platform build_platform(const specs::DeploymentSpec& d, const calibration::Profile& profile) {
  const auto& hw = d.hardware;
  auto* zone = sg4::create_full_zone("fleet");
  Platform p;
  // Host speeds do not matter: step times come from the step-time model and are slept, not computed.
  p.frontend = zone->create_host("frontend", 1e9);
  const int gpus_per_node = d.gpus_per_node;
  // NVL72 racks span several trays: the scale-up domain, not the node, is what NVLink connects.
  const int domain = std::max(gpus_per_node, hw.scale_up_domain_gpus);
  const double nvlink_bw = hw.nvlink_bytes_per_s_one_way() * profile.nvlink_efficiency;
  const double nic_bw = hw.nic_bytes_per_s() * profile.nic_efficiency;

  auto* control = zone->create_link("control", 1e15)->set_latency(0)->set_sharing_policy(
      sg4::Link::SharingPolicy::FATPIPE);
  control->seal();
  auto* fabric = zone->create_link("fabric", 1e15)->set_latency(2e-6)->set_sharing_policy(
      sg4::Link::SharingPolicy::FATPIPE);
  fabric->seal();

  std::vector<sg4::Link*> nvlink, nic;
  for (int g = 0; g < d.total_gpus(); ++g) {
    const std::string name = "node" + std::to_string(g / gpus_per_node) + ".gpu" + std::to_string(g % gpus_per_node);
    p.gpus.push_back(zone->create_host(name, 1e9));
    nvlink.push_back(zone->create_split_duplex_link(name + ".nvlink", nvlink_bw)->set_latency(1e-6)->seal());
    nic.push_back(zone->create_split_duplex_link(name + ".nic", nic_bw)->set_latency(1e-6)->seal());
  }
  using Dir = sg4::LinkInRoute::Direction;
  for (int a = 0; a < d.total_gpus(); ++a) {
    zone->add_route(p.frontend->get_netpoint(), p.gpus[a]->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(control)}, true);
    for (int b = a + 1; b < d.total_gpus(); ++b) {
      if (a / domain == b / domain) {
        zone->add_route(p.gpus[a]->get_netpoint(), p.gpus[b]->get_netpoint(), nullptr, nullptr,
                        {{nvlink[a], Dir::UP}, {nvlink[b], Dir::DOWN}}, true);
      } else {
        // Across domains every pair goes NIC, fabric, NIC: a rail-optimised fabric joins the rails at its spine,
        // so a disaggregated KV transfer between GPUs on different rails still has a route.
        zone->add_route(p.gpus[a]->get_netpoint(), p.gpus[b]->get_netpoint(), nullptr, nullptr,
                        {{nic[a], Dir::UP}, sg4::LinkInRoute(fabric), {nic[b], Dir::DOWN}}, true);
      }
    }
  }
  zone->seal();

  const int per_replica = d.replica.gpus();
  for (int r = 0; r < d.num_replicas(); ++r) {
    p.replicas.emplace_back(p.gpus.begin() + r * per_replica, p.gpus.begin() + (r + 1) * per_replica);
  }
  return p;
}

}  // namespace fleetcast::simulator
