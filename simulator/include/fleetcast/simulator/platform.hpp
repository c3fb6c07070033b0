#pragma once
// The SimGrid platform of a deployment, built in C++: a frontend host for the workload and router, one
// host per GPU, each GPU's NVLink port into its scale-up domain, one NIC per GPU into a rail-optimised
// fabric (GPU i of every node on rail i, the rails joined at the spine), and a control link from the frontend to
// every GPU.

#include <vector>

#include <simgrid/s4u.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

struct Platform {
  simgrid::s4u::Host* frontend = nullptr;
  std::vector<simgrid::s4u::Host*> gpus;  // node-major: node n's GPU g is gpus[n * gpus_per_node + g]
  std::vector<std::vector<simgrid::s4u::Host*>> replicas;  // each replica's GPUs; [0] runs its engine loop
};

// Call after the Engine is created and before actors are; the zone is sealed on return.
Platform build_platform(const specs::DeploymentSpec& d, const calibration::Profile& profile);

}  // namespace fleetcast::simulator
