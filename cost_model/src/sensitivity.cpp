// The tornado table: each cost input moved alone by +-change, blended $/M recomputed by fleet_cost().

#include "fleetcast/cost_model/sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "cost_text.hpp"

namespace fleetcast::cost_model {
namespace {

// One input: where it lives in (CostInputs, ServingWork) and the range a moved value is clamped to.
struct Knob {
  const char* name;
  std::function<double&(CostInputs&, ServingWork&)> ref;
  std::function<double(const CostInputs&)> lowest;   // smallest valid value
  std::function<double(const CostInputs&)> highest;  // largest valid value
};

double none(const CostInputs&) { return 0.0; }
double unbounded(const CostInputs&) { return std::numeric_limits<double>::infinity(); }

// Throughput scales every token count of the window together; the knob moves a multiplier starting at 1.
std::vector<Knob> knobs(Ownership ownership) {
  std::vector<Knob> k;
  if (ownership == Ownership::rent) {
    k.push_back({"rent.usd_per_gpu_hour",
                 [](CostInputs& c, ServingWork&) -> double& { return c.rent.usd_per_gpu_hour; }, none, unbounded});
  } else {
#define FLEETCAST_OWN_KNOB(field, low, high) \
  k.push_back({"own." #field, [](CostInputs& c, ServingWork&) -> double& { return c.own.field; }, low, high});
    FLEETCAST_OWN_KNOB(gpu_purchase_usd, none, unbounded)
    FLEETCAST_OWN_KNOB(server_usd_per_gpu, none, unbounded)
    FLEETCAST_OWN_KNOB(network_usd_per_port, none, unbounded)
    FLEETCAST_OWN_KNOB(depreciation_years, none, unbounded)
    FLEETCAST_OWN_KNOB(idle_power_w, none, [](const CostInputs& c) { return c.own.peak_power_w; })
    FLEETCAST_OWN_KNOB(
        peak_power_w, [](const CostInputs& c) { return c.own.idle_power_w; }, unbounded)
    FLEETCAST_OWN_KNOB(
        pue, [](const CostInputs&) { return 1.0; }, unbounded)
    FLEETCAST_OWN_KNOB(usd_per_kwh, none, unbounded)
    FLEETCAST_OWN_KNOB(operations_usd_per_gpu_hour, none, unbounded)
#undef FLEETCAST_OWN_KNOB
  }
  k.push_back({"fleet.load_factor", [](CostInputs& c, ServingWork&) -> double& { return c.fleet.load_factor; }, none,
               [](const CostInputs&) { return 1.0; }});
  k.push_back({"fleet.spare_share", [](CostInputs& c, ServingWork&) -> double& { return c.fleet.spare_share; }, none,
               unbounded});
  k.push_back({"fleet.storage_usd_per_tb_month",
               [](CostInputs& c, ServingWork&) -> double& { return c.fleet.storage_usd_per_tb_month; }, none,
               unbounded});
  return k;
}

ServingWork scaled(ServingWork w, double throughput) {
  w.input_tokens *= throughput;
  w.output_tokens *= throughput;
  w.cached_input_tokens *= throughput;
  return w;
}

}  // namespace

Tornado tornado(const CostInputs& in, const ServingWork& work, double change) {
  if (!std::isfinite(change) || change <= 0.0 || change >= 1.0) {
    detail::invalid("tornado change", change, "in (0, 1): 0.2 moves every input by -20% and +20%");
  }
  Tornado t;
  t.change = change;
  t.base_usd_per_m = fleet_cost(in, work).usd_per_m_blended;
  for (const Knob& knob : knobs(in.ownership)) {
    CostInputs c = in;
    ServingWork w = work;
    const double base = knob.ref(c, w);
    if (base == 0.0) continue;
    TornadoRow row{knob.name, base};
    row.low = std::clamp(base * (1.0 - change), knob.lowest(in), knob.highest(in));
    row.high = std::clamp(base * (1.0 + change), knob.lowest(in), knob.highest(in));
    knob.ref(c, w) = row.low;
    row.usd_per_m_at_low = fleet_cost(c, w).usd_per_m_blended;
    knob.ref(c, w) = row.high;
    row.usd_per_m_at_high = fleet_cost(c, w).usd_per_m_blended;
    row.swing = std::abs(row.usd_per_m_at_high - row.usd_per_m_at_low);
    t.rows.push_back(row);
  }
  // Throughput: more tokens from the same GPUs, every class alike.
  TornadoRow row{"work.throughput", 1.0, 1.0 - change, 1.0 + change};
  row.usd_per_m_at_low = fleet_cost(in, scaled(work, row.low)).usd_per_m_blended;
  row.usd_per_m_at_high = fleet_cost(in, scaled(work, row.high)).usd_per_m_blended;
  row.swing = std::abs(row.usd_per_m_at_high - row.usd_per_m_at_low);
  t.rows.push_back(row);
  std::stable_sort(t.rows.begin(), t.rows.end(),
                   [](const TornadoRow& a, const TornadoRow& b) { return a.swing > b.swing; });
  return t;
}

nlohmann::json to_json(const Tornado& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const TornadoRow& r : t.rows) {
    rows.push_back({{"input", r.input},
                    {"base", r.base},
                    {"low", r.low},
                    {"high", r.high},
                    {"usd_per_m_at_low", r.usd_per_m_at_low},
                    {"usd_per_m_at_high", r.usd_per_m_at_high},
                    {"swing", r.swing}});
  }
  return {{"change", t.change}, {"base_usd_per_m_blended", t.base_usd_per_m}, {"rows", rows}};
}

}  // namespace fleetcast::cost_model
