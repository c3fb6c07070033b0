// Collectives: t = latency + bytes / bandwidth per (op, gpus), by least squares on the measured sizes, and
// SimGrid-style correction factors by message-size band against the datasheet link (SimGrid's
// network/latency-factor and network/bandwidth-factor take such "size:factor" bands). The bus factors are
// nccl-tests' (doc/PERFORMANCE.md): all-reduce 2(n-1)/n, all-gather, reduce-scatter, all-to-all (n-1)/n,
// send/recv 1.
#include <Eigen/Dense>
#include <algorithm>
#include <map>

#include "fleetcast/calibration/fit.hpp"

namespace fleetcast::calibration {
namespace {

double bus_factor(const std::string& op, int n) {
  if (n <= 1) return 1.0;
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "send_recv") return 1.0;
  return static_cast<double>(n - 1) / n;
}

// Lower edges of the message-size bands: small (latency-bound), 64 KiB, 1 MiB, 16 MiB (bandwidth-bound).
const double kBands[] = {0.0, 65536.0, 1048576.0, 16777216.0};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

long long shape_int(const traces::CalibrationMeasurement& m, const char* key, long long fallback) {
  return m.shape.contains(key) && m.shape.at(key).is_number_integer() ? m.shape.at(key).get<long long>() : fallback;
}

}  // namespace

std::vector<CollectiveModel> fit_collectives(const std::vector<traces::CalibrationMeasurement>& records,
                                             const std::optional<specs::HardwareSpec>& hw, const Profile& base,
                                             const std::string& source) {
  const int domain = hw && hw->scale_up_domain_gpus > 0 ? hw->scale_up_domain_gpus : 8;
  auto transport_for = [&](int gpus) { return gpus <= domain ? "nvlink" : "nic"; };
  auto nominal_bus = [&](const std::string& transport) {
    if (!hw) return 0.0;
    return transport == "nvlink" ? hw->nvlink_bytes_per_s_one_way() : hw->nic_bytes_per_s();
  };

  std::map<std::pair<std::string, int>, std::vector<const traces::CalibrationMeasurement*>> groups;
  for (const auto& m : records) {
    const int gpus = static_cast<int>(shape_int(m, "gpus", m.gpus));
    groups[{m.op, gpus}].push_back(&m);
  }
  std::vector<CollectiveModel> out;
  for (const auto& [key, recs] : groups) {
    CollectiveModel c;
    c.op = key.first;
    c.gpus = key.second;
    c.transport = transport_for(c.gpus);
    c.points = static_cast<int>(recs.size());
    c.source = source;
    const Eigen::Index n = static_cast<Eigen::Index>(recs.size());
    Eigen::MatrixXd A(n, 2);
    Eigen::VectorXd t(n);
    std::vector<double> size(recs.size());
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto* r = recs[static_cast<std::size_t>(i)];
      size[static_cast<std::size_t>(i)] = static_cast<double>(shape_int(*r, "bytes", static_cast<long long>(r->bytes)));
      // Rows weighted by 1 / time: relative errors, so that the small sizes (which set the latency) count as
      // much as the large ones (which set the bandwidth).
      A(i, 0) = 1.0 / r->median_s;
      A(i, 1) = size[static_cast<std::size_t>(i)] / r->median_s;
      t(i) = 1.0;
    }
    double latency = 0.0, inv_bw = 0.0;
    if (n >= 2) {
      const Eigen::VectorXd x = A.colPivHouseholderQr().solve(t);
      latency = x(0);
      inv_bw = x(1);
    }
    if (n < 2 || latency < 0.0 || inv_bw <= 0.0) {
      // Too few points or a negative intercept: bandwidth through the origin, no latency.
      latency = 0.0;
      inv_bw = A.col(1).dot(t) / A.col(1).squaredNorm();
    }
    c.latency_s = latency;
    c.bytes_per_s = 1.0 / inv_bw;
    c.bus_bytes_per_s = c.bytes_per_s * bus_factor(c.op, c.gpus);
    const double nominal = nominal_bus(c.transport);
    for (std::size_t b = 0; b < std::size(kBands); ++b) {
      const double lo = kBands[b], hi = b + 1 < std::size(kBands) ? kBands[b + 1] : 1e300;
      std::vector<double> achieved_bus;
      for (std::size_t i = 0; i < recs.size(); ++i) {
        const double busy = recs[i]->median_s - latency;
        if (size[i] >= lo && size[i] < hi && busy > 0.0)
          achieved_bus.push_back(size[i] * bus_factor(c.op, c.gpus) / busy);
      }
      if (achieved_bus.empty()) continue;
      CollectiveModel::Band band;
      band.min_bytes = lo;
      band.latency_factor = base.collective_latency_s > 0.0 ? latency / base.collective_latency_s : 1.0;
      band.bandwidth_factor = nominal > 0.0 ? median(achieved_bus) / nominal : 1.0;
      c.bands.push_back(band);
    }
    out.push_back(std::move(c));
  }
  if (!hw) return out;
  // Datasheet entries where nothing was measured: every collective across the NVLink domain over the bus
  // bandwidth the profile's efficiency gives, and a send/recv between two nodes over the NIC.
  auto measured = [&](const std::string& op, int gpus) { return groups.count({op, gpus}) > 0; };
  const int g = std::min(domain, 8);
  if (hw->nvlink_gb_per_s > 0.0 && g > 1) {
    for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}) {
      if (measured(op, g)) continue;
      CollectiveModel c{op, g, "nvlink", base.collective_latency_s, 0.0, 0.0, {}, 0, ""};
      c.bus_bytes_per_s = hw->nvlink_bytes_per_s_one_way() * base.nvlink_efficiency;
      c.bytes_per_s = c.bus_bytes_per_s / bus_factor(op, g);
      c.bands.push_back({0.0, 1.0, base.nvlink_efficiency});
      c.source = "datasheet: " + hw->name + " one-way NVLink x nvlink_efficiency, collective_latency_s";
      out.push_back(std::move(c));
    }
  }
  if (hw->nic_gbit_per_s > 0.0 && !measured("send_recv", 2 * domain)) {
    CollectiveModel c{"send_recv", 2 * domain, "nic", base.collective_latency_s, 0.0, 0.0, {}, 0, ""};
    c.bytes_per_s = c.bus_bytes_per_s = hw->nic_bytes_per_s() * base.nic_efficiency;
    c.bands.push_back({0.0, 1.0, base.nic_efficiency});
    c.source = "datasheet: " + hw->name + " NIC line rate x nic_efficiency, collective_latency_s";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fleetcast::calibration
