// metrics.kv_cache: what memory pressure did to the requests over the whole run (warm-up and cool-down
// included, as metrics.preemptions): preemptions, how each was served (recompute or swap), the KV bytes per
// GPU moved to host memory and back, and the time those transfers added to steps.
#include <vector>

#include "fleetcast/simulator/hardware_rates.hpp"
#include "report_metrics.hpp"

namespace fleetcast::simulator::detail {
namespace {

struct KvCacheCounts {
  std::int64_t preemptions = 0, recomputes = 0, swaps_out = 0, swaps_in = 0, requests_preempted = 0;
  double swapped_out_bytes = 0.0;
  double swapped_in_bytes = 0.0;  // every swap-in moves back what the swap-out before it moved

  void add(const Request& r) {
    preemptions += r.preemptions;
    recomputes += r.recomputes;
    swaps_out += r.swaps_out;
    swaps_in += r.swaps_in;
    requests_preempted += r.preemptions > 0 ? 1 : 0;
    swapped_out_bytes += r.swapped_out_bytes;
    swapped_in_bytes += r.swapped_out_bytes - r.swapped_kv_bytes;  // less what was still in host memory
  }
  nlohmann::json to_json(double host_link_bytes_per_s) const {
    return {{"preemptions", preemptions},
            {"recomputes", recomputes},
            {"swaps_out", swaps_out},
            {"swaps_in", swaps_in},
            {"requests_preempted", requests_preempted},
            {"swapped_out_bytes_per_gpu", swapped_out_bytes},
            {"swapped_in_bytes_per_gpu", swapped_in_bytes},
            // Each GPU moves its own share over its own host link, all at once.
            {"swap_transfer_s", (swapped_out_bytes + swapped_in_bytes) / host_link_bytes_per_s}};
  }
};

}  // namespace

nlohmann::json kv_cache_json(const ReportInputs& in) {
  const auto& classes = in.scenario->workload.classes;
  std::vector<KvCacheCounts> per_class(classes.size());
  KvCacheCounts all;
  for (const Request& r : in.recorder->requests()) {
    per_class[static_cast<std::size_t>(r.class_index)].add(r);
    all.add(r);
  }
  const double bw = RateTable(in.scenario->deployment.hardware, *in.profile).host_link_bytes_per_s();
  nlohmann::json out = all.to_json(bw);
  nlohmann::json by_class = nlohmann::json::object();
  for (std::size_t k = 0; k < classes.size(); ++k) by_class[classes[k].name] = per_class[k].to_json(bw);
  out["by_class"] = by_class;
  return out;
}

}  // namespace fleetcast::simulator::detail
