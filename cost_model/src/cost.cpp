// Rental cost of a deployment and its split into $/M input and output tokens.

#include "fleetcast/cost_model/cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "cost_text.hpp"

namespace fleetcast::cost_model {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kSecondsPerHour = 3600.0;
constexpr double kTokensPerMillion = 1e6;
// Idle time may exceed gpus * window_s by rounding in the simulator's sums, not by more.
constexpr double kCapacityTolerance = 1e-9;

using detail::invalid;
using detail::number_text;
using detail::require_non_negative;
using detail::usd_text;

// $ per million tokens; +infinity when nothing was produced, even at zero cost, since 0/0 would say nothing.
double per_million(double usd, double tokens) {
  if (tokens == 0.0) return kInfinity;
  return usd / (tokens / kTokensPerMillion);
}

std::string included_text(const RentalPrice& price, double usd_per_gpu_hour, int gpus) {
  std::string terms = "on demand";
  if (price.reserved) {
    terms = "reserved, " + number_text(price.reserved_discount * 100.0) + "% off " + usd_text(price.usd_per_gpu_hour);
  }
  std::string fleet = gpus == 1 ? "the 1 GPU" : "all " + std::to_string(gpus) + " GPUs";
  return "GPU rental at " + usd_text(usd_per_gpu_hour) + "/GPU-hour (" + terms + ") for " + fleet +
         " over the window, idle time charged to work in proportion; excludes power, networking, storage, "
         "staff and failure spares";
}

// JSON has no infinity or NaN; nlohmann would write null anyway, but saying so here keeps the schema explicit.
nlohmann::json number_or_null(double x) {
  if (!std::isfinite(x)) return nullptr;
  return x;
}

}  // namespace

void validate_work(const ServingWork& w) {
  if (w.gpus <= 0) invalid("ServingWork.gpus", w.gpus, "an integer >= 1 (every GPU of the deployment)");
  if (!std::isfinite(w.window_s) || w.window_s <= 0.0) invalid("ServingWork.window_s", w.window_s, "> 0 seconds");
  require_non_negative("ServingWork.input_tokens", w.input_tokens);
  require_non_negative("ServingWork.output_tokens", w.output_tokens);
  require_non_negative("ServingWork.prefill_busy_gpu_s", w.prefill_busy_gpu_s);
  require_non_negative("ServingWork.decode_busy_gpu_s", w.decode_busy_gpu_s);
  require_non_negative("ServingWork.idle_gpu_s", w.idle_gpu_s);
  require_non_negative("ServingWork.cached_input_tokens", w.cached_input_tokens);
  require_non_negative("ServingWork.cache_read_busy_gpu_s", w.cache_read_busy_gpu_s);
  // idle_share must be a share: more idle time than the deployment had means the units are wrong
  // (per-replica seconds, milliseconds) and every figure below would be too.
  double capacity_gpu_s = w.gpus * w.window_s;
  if (w.idle_gpu_s > capacity_gpu_s * (1.0 + kCapacityTolerance)) {
    invalid("ServingWork.idle_gpu_s", w.idle_gpu_s,
            "<= gpus * window_s = " + number_text(capacity_gpu_s) + " GPU-seconds");
  }
  // With no busy time there is nothing to split the cost by; tokens produced without it is a broken breakdown.
  bool no_busy = w.prefill_busy_gpu_s + w.decode_busy_gpu_s == 0.0;
  if (no_busy && (w.input_tokens > 0.0 || w.output_tokens > 0.0)) {
    throw std::invalid_argument("cost_model: ServingWork has " + number_text(w.input_tokens) + " input and " +
                                number_text(w.output_tokens) +
                                " output tokens but prefill_busy_gpu_s + decode_busy_gpu_s = 0: "
                                "tokens need busy GPU time to charge their cost to");
  }
}

double effective_usd_per_gpu_hour(const RentalPrice& price) {
  require_non_negative("RentalPrice.usd_per_gpu_hour", price.usd_per_gpu_hour);
  // Checked even when on demand: a discount out of range is a mistake in the input whichever flag is set.
  if (!std::isfinite(price.reserved_discount) || price.reserved_discount < 0.0 || price.reserved_discount >= 1.0) {
    invalid("RentalPrice.reserved_discount", price.reserved_discount, "in [0, 1) (0.3 = 30% off)");
  }
  if (!price.reserved) return price.usd_per_gpu_hour;
  return price.usd_per_gpu_hour * (1.0 - price.reserved_discount);
}

TokenCost token_cost(const RentalPrice& price, const ServingWork& work) {
  double usd_per_gpu_hour = effective_usd_per_gpu_hour(price);
  validate_work(work);

  TokenCost out;
  out.usd_per_hour = usd_per_gpu_hour * work.gpus;
  double window_usd = out.usd_per_hour * work.window_s / kSecondsPerHour;

  double busy_gpu_s = work.prefill_busy_gpu_s + work.decode_busy_gpu_s;
  if (busy_gpu_s > 0.0) {
    // Idle capacity is charged in proportion to busy time, so the two shares add up to the whole window's cost.
    double prefill_usd = window_usd * work.prefill_busy_gpu_s / busy_gpu_s;
    double decode_usd = window_usd * work.decode_busy_gpu_s / busy_gpu_s;
    out.usd_per_m_input = per_million(prefill_usd, work.input_tokens);
    out.usd_per_m_output = per_million(decode_usd, work.output_tokens);
  } else {
    // An idle window (validate() rejected tokens without busy time): nothing came out of either class.
    out.usd_per_m_input = kInfinity;
    out.usd_per_m_output = kInfinity;
  }
  out.usd_per_m_tokens_blended = per_million(window_usd, work.input_tokens + work.output_tokens);
  out.usd_per_m_output_all_in = per_million(window_usd, work.output_tokens);
  out.idle_share = work.idle_gpu_s / (work.gpus * work.window_s);
  out.included = included_text(price, usd_per_gpu_hour, work.gpus);
  return out;
}

nlohmann::json to_json(const TokenCost& cost) {
  return nlohmann::json{
      {"usd_per_hour", number_or_null(cost.usd_per_hour)},
      {"usd_per_m_input", number_or_null(cost.usd_per_m_input)},
      {"usd_per_m_output", number_or_null(cost.usd_per_m_output)},
      {"usd_per_m_tokens_blended", number_or_null(cost.usd_per_m_tokens_blended)},
      {"usd_per_m_output_all_in", number_or_null(cost.usd_per_m_output_all_in)},
      {"idle_share", number_or_null(cost.idle_share)},
      {"included", cost.included},
  };
}

}  // namespace fleetcast::cost_model
