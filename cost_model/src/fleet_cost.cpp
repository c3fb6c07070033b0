// A fleet's cost per hour, owned or rented, its split into $/M tokens by class, and revenue at a price list.

#include "fleetcast/cost_model/fleet_cost.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "cost_text.hpp"

namespace fleetcast::cost_model {
namespace {

using detail::invalid;
using detail::number_text;
using detail::require_non_negative;
using detail::usd_text;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kSecondsPerHour = 3600.0;
constexpr double kTokensPerMillion = 1e6;
constexpr double kWattsPerKilowatt = 1000.0;

void validate(const OwnedPrice& p) {
  require_non_negative("OwnedPrice.gpu_purchase_usd", p.gpu_purchase_usd);
  require_non_negative("OwnedPrice.server_usd_per_gpu", p.server_usd_per_gpu);
  require_non_negative("OwnedPrice.network_usd_per_port", p.network_usd_per_port);
  require_non_negative("OwnedPrice.network_ports_per_gpu", p.network_ports_per_gpu);
  if (!std::isfinite(p.depreciation_years) || p.depreciation_years <= 0.0) {
    invalid("OwnedPrice.depreciation_years", p.depreciation_years, "> 0 years");
  }
  require_non_negative("OwnedPrice.idle_power_w", p.idle_power_w);
  require_non_negative("OwnedPrice.peak_power_w", p.peak_power_w);
  if (p.peak_power_w < p.idle_power_w) {
    invalid("OwnedPrice.peak_power_w", p.peak_power_w, ">= idle_power_w = " + number_text(p.idle_power_w) + " W");
  }
  if (!std::isfinite(p.pue) || p.pue < 1.0) invalid("OwnedPrice.pue", p.pue, ">= 1 (facility power / IT power)");
  require_non_negative("OwnedPrice.usd_per_kwh", p.usd_per_kwh);
  require_non_negative("OwnedPrice.operations_usd_per_gpu_hour", p.operations_usd_per_gpu_hour);
}

void validate(const FleetTerms& f) {
  if (!std::isfinite(f.load_factor) || f.load_factor <= 0.0 || f.load_factor > 1.0) {
    invalid("FleetTerms.load_factor", f.load_factor, "in (0, 1]: average load / the simulated (provisioned) load");
  }
  require_non_negative("FleetTerms.spare_share", f.spare_share);
  require_non_negative("FleetTerms.storage_tb", f.storage_tb);
  require_non_negative("FleetTerms.storage_usd_per_tb_month", f.storage_usd_per_tb_month);
}

double per_million(double usd, double tokens) {
  if (tokens == 0.0) return kInfinity;
  return usd / (tokens / kTokensPerMillion);
}

// Watts drawn by one GPU (with its server share) at a utilisation u in [0, 1]: linear from idle to peak.
double watts(const OwnedPrice& p, double u) { return p.idle_power_w + (p.peak_power_w - p.idle_power_w) * u; }

// $ per hour for `w` watts of IT load: times PUE for the facility, at $/kWh.
double power_usd_per_hour(const OwnedPrice& p, double w) { return w / kWattsPerKilowatt * p.pue * p.usd_per_kwh; }

std::string included_text(const CostInputs& in, const FleetCost& c) {
  const FleetTerms& f = in.fleet;
  std::string what;
  if (in.ownership == Ownership::rent) {
    what = "GPU rental at " + usd_text(effective_usd_per_gpu_hour(in.rent)) + "/GPU-hour" +
           (in.rent.reserved ? " (reserved)" : " (on demand)") + ", power and network included in the rent";
  } else {
    const OwnedPrice& p = in.own;
    what = "owned GPUs: purchase, server share and network ports written off over " +
           number_text(p.depreciation_years) + " years, power " + number_text(p.idle_power_w) + "-" +
           number_text(p.peak_power_w) + " W per GPU at " + number_text(100.0 * c.power_utilisation) +
           "% utilisation times PUE " + number_text(p.pue) + " at " + usd_text(p.usd_per_kwh) + "/kWh, operations";
  }
  return what + "; " + number_text(100.0 * f.spare_share) + "% spare GPUs, storage " + number_text(f.storage_tb) +
         " TB; tokens at " + number_text(100.0 * f.load_factor) +
         "% of the simulated load on average; excludes interest, software licences and the serving layer";
}

nlohmann::json number_or_null(double x) {
  if (!std::isfinite(x)) return nullptr;
  return x;
}

}  // namespace

FleetCost fleet_cost(const CostInputs& in, const ServingWork& work) {
  validate_work(work);
  validate(in.fleet);
  const FleetTerms& f = in.fleet;
  FleetCost c;
  c.serving_gpus = work.gpus;
  c.fleet_gpus = work.gpus * (1.0 + f.spare_share);
  const double busy_share = 1.0 - work.idle_gpu_s / (work.gpus * work.window_s);
  c.power_utilisation = busy_share * f.load_factor;

  auto add = [&c](const char* item, double usd_per_hour) {
    if (usd_per_hour != 0.0) c.breakdown.push_back({item, usd_per_hour, 0.0});
  };
  const double spare_gpus = work.gpus * f.spare_share;
  if (in.ownership == Ownership::rent) {
    const double rent = effective_usd_per_gpu_hour(in.rent);
    add("gpu_rental", rent * work.gpus);
    add("spares", rent * spare_gpus);
  } else {
    validate(in.own);
    const OwnedPrice& p = in.own;
    const double hours = p.depreciation_years * kHoursPerYear;
    const double gpu = p.gpu_purchase_usd / hours, server = p.server_usd_per_gpu / hours;
    const double network = p.network_ports_per_gpu * p.network_usd_per_port / hours;
    add("gpu_depreciation", gpu * work.gpus);
    add("server_depreciation", server * work.gpus);
    add("network_depreciation", network * work.gpus);
    add("power", power_usd_per_hour(p, watts(p, c.power_utilisation)) * work.gpus);
    add("operations", p.operations_usd_per_gpu_hour * work.gpus);
    // A spare is bought and operated like a serving GPU and sits powered at idle.
    add("spares",
        (gpu + server + network + p.operations_usd_per_gpu_hour + power_usd_per_hour(p, p.idle_power_w)) * spare_gpus);
  }
  add("storage", f.storage_tb * f.storage_usd_per_tb_month / kHoursPerMonth);
  for (const CostItem& item : c.breakdown) c.usd_per_hour += item.usd_per_hour;
  for (CostItem& item : c.breakdown) item.share = item.usd_per_hour / c.usd_per_hour;
  c.usd_per_gpu_hour = c.usd_per_hour / c.fleet_gpus;

  // Tokens per hour at the average load; the whole hour's cost is split by busy GPU-seconds, idle time (and the
  // spares, power and storage) charged to the classes in that proportion, as token_cost() does.
  const double tokens_per_hour_per_window_token = kSecondsPerHour / work.window_s * f.load_factor;
  const double busy = work.prefill_busy_gpu_s + work.decode_busy_gpu_s + work.cache_read_busy_gpu_s;
  const auto class_cost = [&](double busy_gpu_s, double tokens) {
    if (busy == 0.0) return kInfinity;
    return per_million(c.usd_per_hour * busy_gpu_s / busy, tokens * tokens_per_hour_per_window_token);
  };
  c.usd_per_m_input = class_cost(work.prefill_busy_gpu_s, work.input_tokens);
  c.usd_per_m_output = class_cost(work.decode_busy_gpu_s, work.output_tokens);
  c.usd_per_m_cache_read = class_cost(work.cache_read_busy_gpu_s, work.cached_input_tokens);
  c.usd_per_m_blended =
      per_million(c.usd_per_hour, (work.input_tokens + work.cached_input_tokens + work.output_tokens) *
                                      tokens_per_hour_per_window_token);
  c.included = included_text(in, c);
  return c;
}

Revenue revenue(const FleetCost& cost, const ServingWork& work, const FleetTerms& fleet, const PriceList& prices) {
  require_non_negative("PriceList.usd_per_m_input", prices.usd_per_m_input);
  require_non_negative("PriceList.usd_per_m_output", prices.usd_per_m_output);
  require_non_negative("PriceList.usd_per_m_cache_read", prices.usd_per_m_cache_read);
  validate_work(work);
  validate(fleet);
  const double m_per_hour = kSecondsPerHour / work.window_s * fleet.load_factor / kTokensPerMillion;
  Revenue r;
  r.usd_per_hour =
      m_per_hour * (work.input_tokens * prices.usd_per_m_input + work.output_tokens * prices.usd_per_m_output +
                    work.cached_input_tokens * prices.usd_per_m_cache_read);
  r.usd_per_gpu_hour = r.usd_per_hour / cost.fleet_gpus;
  r.margin_usd_per_hour = r.usd_per_hour - cost.usd_per_hour;
  r.margin_share = r.usd_per_hour > 0.0 ? r.margin_usd_per_hour / r.usd_per_hour : std::nan("");
  r.input_saving_usd_per_m = prices.usd_per_m_input - cost.usd_per_m_input;
  r.output_saving_usd_per_m = prices.usd_per_m_output - cost.usd_per_m_output;
  r.cache_read_saving_usd_per_m = prices.usd_per_m_cache_read - cost.usd_per_m_cache_read;
  return r;
}

nlohmann::json to_json(const FleetCost& c) {
  nlohmann::json breakdown = nlohmann::json::array();
  for (const CostItem& item : c.breakdown) {
    breakdown.push_back({{"item", item.item}, {"usd_per_hour", item.usd_per_hour}, {"share", item.share}});
  }
  return {{"serving_gpus", c.serving_gpus},
          {"fleet_gpus", c.fleet_gpus},
          {"usd_per_hour", number_or_null(c.usd_per_hour)},
          {"usd_per_gpu_hour", number_or_null(c.usd_per_gpu_hour)},
          {"power_utilisation", c.power_utilisation},
          {"usd_per_m_input", number_or_null(c.usd_per_m_input)},
          {"usd_per_m_output", number_or_null(c.usd_per_m_output)},
          {"usd_per_m_cache_read", number_or_null(c.usd_per_m_cache_read)},
          {"usd_per_m_blended", number_or_null(c.usd_per_m_blended)},
          {"breakdown", breakdown},
          {"included", c.included}};
}

nlohmann::json to_json(const Revenue& r) {
  return {{"usd_per_hour", number_or_null(r.usd_per_hour)},
          {"usd_per_gpu_hour", number_or_null(r.usd_per_gpu_hour)},
          {"margin_usd_per_hour", number_or_null(r.margin_usd_per_hour)},
          {"margin_share", number_or_null(r.margin_share)},
          {"input_saving_usd_per_m", number_or_null(r.input_saving_usd_per_m)},
          {"output_saving_usd_per_m", number_or_null(r.output_saving_usd_per_m)},
          {"cache_read_saving_usd_per_m", number_or_null(r.cache_read_saving_usd_per_m)}};
}

}  // namespace fleetcast::cost_model
