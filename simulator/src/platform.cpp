#include "fleetcast/simulator/platform.hpp"

#include <map>
#include <memory>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <string>
#include <unordered_set>

#include "fleetcast/calibration/fit.hpp"

namespace fleetcast::simulator {

namespace sg4 = simgrid::s4u;

namespace {

// Which transport a route crosses, from its links' names (the GPU ports below): "" for the control and
// frontend routes, which the factors leave alone.
std::string transport_of(const std::vector<sg4::Link*>& links) {
  for (const auto* l : links) {
    const std::string& name = l->get_name();
    if (name.find(".nic_") != std::string::npos) return "nic";
    if (name.find(".nvlink_") != std::string::npos) return "nvlink";
  }
  return "";
}

// The profile's network factors, rescaled to this platform's routes (a factor multiplies the route SimGrid has;
// the fit's reference route may differ when the profile's efficiencies were edited since), installed as the
// CM02 model's latency and bandwidth factor callbacks. Without factors nothing is installed: links deliver
// exactly their latency and bandwidth.
void install_network_factors(sg4::NetZone* zone, const specs::HardwareSpec& hw, const calibration::Profile& profile) {
  if (profile.network_factors.empty()) return;
  struct Scaled {
    calibration::NetworkFactors factors;
    double latency_scale, bandwidth_scale;
  };
  auto scaled = std::make_shared<std::map<std::string, Scaled>>();
  for (const auto& f : profile.network_factors) {
    const calibration::SimulatedRoute route = calibration::simulated_route(f.transport, hw, profile);
    if (!(route.bytes_per_s > 0.0)) continue;
    (*scaled)[f.transport] = {f, f.route_latency_s / route.latency_s, f.route_bytes_per_s / route.bytes_per_s};
  }
  using Links = std::vector<sg4::Link*>;
  using Zones = std::unordered_set<sg4::NetZone*>;
  auto* model = zone->get_network_model();
  model->set_lat_factor_cb([scaled](double size, const sg4::Host*, const sg4::Host*, const Links& links, const Zones&) {
    const auto it = scaled->find(transport_of(links));
    return it == scaled->end() ? 1.0 : it->second.factors.band_for(size).latency_factor * it->second.latency_scale;
  });
  model->set_bw_factor_cb([scaled](double size, const sg4::Host*, const sg4::Host*, const Links& links, const Zones&) {
    const auto it = scaled->find(transport_of(links));
    return it == scaled->end() ? 1.0 : it->second.factors.band_for(size).bandwidth_factor * it->second.bandwidth_scale;
  });
}

}  // namespace

Platform build_platform(const specs::DeploymentSpec& d, const calibration::Profile& profile) {
  const auto& hw = d.hardware;
  // With network factors, a route's latency grows by its factor; SimGrid's TCP window bound (gamma / (2 x
  // latency)) would then cap the bandwidth below what was measured. The factors are the whole correction.
  if (!profile.network_factors.empty()) sg4::Engine::set_config("network/TCP-gamma:0");
  auto* zone = sg4::create_full_zone("fleet");
  Platform p;
  // Host speeds do not matter: step times come from the step-time model and are slept, not computed.
  p.frontend = zone->create_host("frontend", 1e9);
  const int gpus_per_node = d.gpus_per_node;
  // NVL72 racks span several trays: the scale-up domain, not the node, is what NVLink connects.
  const int domain = std::max(gpus_per_node, hw.scale_up_domain_gpus);
  const double nvlink_bw = hw.nvlink_bytes_per_s_one_way() * profile.nvlink_efficiency;
  const double nic_bw = hw.nic_bytes_per_s() * profile.nic_efficiency;

  auto* control =
      zone->create_link("control", 1e15)->set_latency(0)->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
  control->seal();
  auto* fabric = zone->create_link("fabric", 1e15)
                     ->set_latency(calibration::kFabricLatencyS)
                     ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
  fabric->seal();

  std::vector<sg4::Link*> nvlink, nic;
  for (int g = 0; g < d.total_gpus(); ++g) {
    const std::string name = "node" + std::to_string(g / gpus_per_node) + ".gpu" + std::to_string(g % gpus_per_node);
    p.gpus.push_back(zone->create_host(name, 1e9));
    nvlink.push_back(zone->create_split_duplex_link(name + ".nvlink", nvlink_bw)
                         ->set_latency(calibration::kGpuLinkLatencyS)
                         ->seal());
    nic.push_back(
        zone->create_split_duplex_link(name + ".nic", nic_bw)->set_latency(calibration::kGpuLinkLatencyS)->seal());
  }
  using Dir = sg4::LinkInRoute::Direction;
  for (int a = 0; a < d.total_gpus(); ++a) {
    zone->add_route(p.frontend->get_netpoint(), p.gpus[a]->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(control)}, true);
    for (int b = a + 1; b < d.total_gpus(); ++b) {
      if (a / domain == b / domain && hw.scale_up_topology == "mesh") {
        // A mesh joins each pair by its own link: a copy between two GPUs gets that link, and copies to different
        // peers do not share it.
        auto* pair = zone->create_split_duplex_link(p.gpus[a]->get_name() + "-" + p.gpus[b]->get_name() + ".link",
                                                    hw.scale_up_bytes_per_s_one_way(2) * profile.nvlink_efficiency)
                         ->set_latency(2.0 * calibration::kGpuLinkLatencyS)
                         ->seal();
        zone->add_route(p.gpus[a]->get_netpoint(), p.gpus[b]->get_netpoint(), nullptr, nullptr, {{pair, Dir::UP}},
                        true);
      } else if (a / domain == b / domain) {
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
  install_network_factors(zone, hw, profile);

  const int per_replica = d.replica.gpus();
  for (int r = 0; r < d.num_replicas(); ++r) {
    p.replicas.emplace_back(p.gpus.begin() + r * per_replica, p.gpus.begin() + (r + 1) * per_replica);
  }
  return p;
}

}  // namespace fleetcast::simulator
