#pragma once
// What a fleet costs per hour, owned or rented, and what each million tokens costs and earns.
//
// token_cost() (cost.hpp) prices rented GPU time only. fleet_cost() adds what an owner pays (purchase of GPUs,
// their share of the server and the network ports, written off over the depreciation years; power from idle to
// TDP by utilisation, times PUE, at $/kWh; operations) and what both pay (spare GPUs for failures, storage, and
// a fleet provisioned for its peak load while the average load is lower). Pure functions: every figure can be
// checked by hand, and docs/COST.md works one example through.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleetcast/cost_model/cost.hpp"

namespace fleetcast::cost_model {

constexpr double kHoursPerYear = 8760.0;                 // 365 days: depreciation is written off per calendar hour
constexpr double kHoursPerMonth = kHoursPerYear / 12.0;  // 730: storage is priced per TB-month

// Buying the GPUs. Capital per GPU = gpu_purchase_usd + server_usd_per_gpu + network_ports_per_gpu *
// network_usd_per_port, written off linearly over depreciation_years (no residual value, no interest).
struct OwnedPrice {
  double gpu_purchase_usd = 0.0;       // one GPU (REFERENCE.md section 6: H100 25-30k, H200 ~40k, B200 60-70k)
  double server_usd_per_gpu = 0.0;     // the server around it (CPUs, memory, chassis, NVSwitch) / GPUs per server
  double network_usd_per_port = 0.0;   // one scale-out port: NIC, transceiver, cable, switch port share
  double network_ports_per_gpu = 1.0;  // HGX: one NIC per GPU (REFERENCE.md section 8)
  double depreciation_years = 4.0;
  double idle_power_w = 0.0;  // per GPU with its server share, doing nothing
  double peak_power_w = 0.0;  // per GPU with its server share, busy (the GPU's TDP plus its share of the host)
  double pue = 1.0;           // facility power / IT power (cooling, conversion losses)
  double usd_per_kwh = 0.0;
  double operations_usd_per_gpu_hour = 0.0;  // staff, maintenance contracts, space: anything per GPU and hour
};

enum class Ownership { rent, own };

// What both owners and renters pay beyond the GPUs doing the work.
struct FleetTerms {
  // Average load / the load the fleet is provisioned for (the simulated one). The GPUs are paid for every hour,
  // but the tokens come at this share of the simulated rate, and owned GPUs draw power for this share of the
  // simulated busy time. 1: the simulated load runs all day. In (0, 1].
  double load_factor = 1.0;
  // Extra GPUs held for failures, as a share of the serving GPUs (0.05: 5 spares per 100). Paid like serving
  // GPUs (rent, or capital and operations) and, owned, drawing idle power. >= 0.
  double spare_share = 0.0;
  double storage_tb = 0.0;                // weights, images, logs: the whole deployment's
  double storage_usd_per_tb_month = 0.0;  // $ per TB per month (730 hours)
};

struct CostInputs {
  Ownership ownership = Ownership::rent;
  RentalPrice rent{0.0};  // when renting
  OwnedPrice own;         // when owning
  FleetTerms fleet;
};

// A price list: what a managed API charges per million tokens (REFERENCE.md section 6: DeepSeek V4.1 Flash
// $0.30 input, $1.20 output, $0.03 cache read).
struct PriceList {
  double usd_per_m_input = 0.0;
  double usd_per_m_output = 0.0;
  double usd_per_m_cache_read = 0.0;
};

// One line of "what each dollar pays for": $/hour of the whole fleet and its share of the total.
struct CostItem {
  std::string item;  // gpu_rental, gpu_depreciation, server_depreciation, network_depreciation, power,
                     // operations, spares, storage
  double usd_per_hour = 0.0;
  double share = 0.0;
};

struct FleetCost {
  double serving_gpus = 0.0;       // ServingWork::gpus
  double fleet_gpus = 0.0;         // serving GPUs plus spares
  double usd_per_hour = 0.0;       // the whole fleet, spares and storage included
  double usd_per_gpu_hour = 0.0;   // usd_per_hour / fleet_gpus
  double power_utilisation = 0.0;  // share of the way from idle to peak power: busy share * load_factor
  // $ per million tokens at the average load. Prefill and decode split the cost by their busy GPU-seconds (the
  // step-time breakdown, or each pool's GPU-seconds when disaggregated); cache reads are charged the GPU time
  // ServingWork::cache_read_busy_gpu_s gives them (0 in the simulator: a prefix-cache hit skips the compute).
  double usd_per_m_input = 0.0;
  double usd_per_m_output = 0.0;
  double usd_per_m_cache_read = 0.0;
  double usd_per_m_blended = 0.0;   // all cost / all tokens (input, cache read and output)
  std::vector<CostItem> breakdown;  // in the order of CostItem::item's comment, zero items left out
  std::string included;             // one sentence: what the figures include and exclude
};

// Throws std::invalid_argument naming the field for a negative or non-finite input, a load factor outside (0, 1],
// depreciation_years <= 0, pue < 1, peak_power_w < idle_power_w, or work token_cost() would reject.
FleetCost fleet_cost(const CostInputs& in, const ServingWork& work);

// Revenue and margin if the tokens were sold at a price list (revenue is not profit, and the price list of a
// managed API is what a buyer would otherwise pay).
struct Revenue {
  double usd_per_hour = 0.0;         // tokens per hour at the average load * prices
  double usd_per_gpu_hour = 0.0;     // per fleet GPU (spares included: they are paid for)
  double margin_usd_per_hour = 0.0;  // revenue - cost
  double margin_share = 0.0;         // margin / revenue (NaN, null in JSON, with no revenue)
  // API price - our cost, per million tokens of each class (positive: cheaper to serve than to buy).
  double input_saving_usd_per_m = 0.0;
  double output_saving_usd_per_m = 0.0;
  double cache_read_saving_usd_per_m = 0.0;
};

Revenue revenue(const FleetCost& cost, const ServingWork& work, const FleetTerms& fleet, const PriceList& prices);

nlohmann::json to_json(const FleetCost& cost);
nlohmann::json to_json(const Revenue& revenue);

}  // namespace fleetcast::cost_model
