#pragma once
// SimGrid network factors (docs/CALIBRATION.md, "Network factors"): per transport (NVLink, NIC) and by message
// size, the corrections SimGrid's CM02 network model multiplies a route's latency and bandwidth by (its
// network/latency-factor and network/bandwidth-factor "size:factor;..." bands, here installed through the network
// model's factor callbacks so that each transport has its own), fitted so that a simulated transfer of each
// measured size takes the time the measured send/recv took.

#include <string>
#include <vector>

namespace fleetcast::calibration {

// Per-hop latencies of the simulated platform's links (simulator/src/platform.cpp builds its links from them):
// a GPU's NVLink or NIC port, and the fabric's spine.
inline constexpr double kGpuLinkLatencyS = 1e-6;
inline constexpr double kFabricLatencyS = 2e-6;

// For messages of at least `min_bytes` (up to the next band's): route latency x latency_factor and route
// bandwidth x bandwidth_factor.
struct NetworkFactorBand {
  double min_bytes = 0.0;
  double latency_factor = 1.0;
  double bandwidth_factor = 1.0;
  bool operator==(const NetworkFactorBand&) const = default;
};

struct NetworkFactors {
  std::string transport;  // "nvlink" or "nic"
  // The simulated route the factors were fitted against (its latency summed over the hops, its bandwidth the
  // slowest hop's): a platform whose route differs rescales the factors to keep the same times.
  double route_latency_s = 0.0;
  double route_bytes_per_s = 0.0;
  std::vector<NetworkFactorBand> bands;     // ascending min_bytes, the first at 0
  int points = 0;                           // measurements behind the fit
  double min_bytes = 0.0, max_bytes = 0.0;  // measured message sizes
  double median_ape = 0.0, max_ape = 0.0;   // transfer_time_s against the measured times
  std::string source;
  bool operator==(const NetworkFactors&) const = default;

  const NetworkFactorBand& band_for(double bytes) const;
  // What CM02 gives one transfer alone on the route: latency x factor + bytes / (bandwidth x factor).
  double transfer_time_s(double bytes) const;
};

}  // namespace fleetcast::calibration
