// A measured run's speculative decoding as the scenario's (speculative_run.hpp).
#include "fleetcast/validation/speculative_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fleetcast::validation {
namespace {

double accepted_length(double rate, int drafts) {
  double length = 1.0, reach = 1.0;
  for (int i = 0; i < drafts; ++i) {
    reach *= rate;
    length += reach;
  }
  return length;
}

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

}  // namespace

std::vector<double> conditional_acceptance(const std::vector<double>& position_shares) {
  std::vector<double> rates;
  double before = 1.0;
  for (double share : position_shares) {
    rates.push_back(before > 0.0 ? std::clamp(share / before, 0.0, 1.0) : 0.0);
    before = share;
  }
  return rates;
}

double uniform_acceptance_rate(double length, int drafts) {
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (accepted_length(mid, drafts) < length ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::variant<nlohmann::json, Unmapped> speculative_for_run(const traces::MeasuredServingRun& run,
                                                           const std::string& model_name, int model_mtp_layers,
                                                           std::string& notes) {
  const bool measured = run.spec_accept_length > 0.0 || !run.spec_position_acceptance.empty();
  if (run.spec_method.empty() && !measured) return nlohmann::json(nullptr);
  auto note = [&](const std::string& n) { notes += (notes.empty() ? "" : "; ") + n; };
  const std::string length = fixed(run.spec_accept_length, 2);
  std::string method = run.spec_method;
  if (method.empty()) {
    if (model_mtp_layers <= 0) {
      return Unmapped{"speculative decoding (accepted length " + length + ") on " + model_name +
                      ", which has no MTP layers: drafts from a separate model are not modelled"};
    }
    method = "mtp";
    note("speculative decoding by the model's own MTP layers: the file and launch do not say the method");
  }
  if (method != "mtp") {
    return Unmapped{"speculative decoding by " + method + ": only drafts from the model's own MTP layers are modelled"};
  }
  if (model_mtp_layers <= 0) {
    return Unmapped{"speculative decoding by MTP, but model preset " + model_name + " has no MTP layers"};
  }
  const int n = run.spec_draft_tokens;
  if (n <= 0) {
    return Unmapped{
        "speculative decoding: the drafts per step are not given (the launch's num_nextn_predict_layers, "
        "num_speculative_tokens or speculative_num_steps: --server-args)"};
  }
  if (n > 16) return Unmapped{std::to_string(n) + " drafts per step: at most 16 are modelled"};
  std::vector<double> rates;
  if (static_cast<int>(run.spec_position_acceptance.size()) == n) {
    rates = conditional_acceptance(run.spec_position_acceptance);
    std::string shown;
    for (double r : rates) shown += (shown.empty() ? "" : ", ") + fixed(r, 3);
    note("MTP, " + std::to_string(n) + " drafts per step, accepted at " + shown +
         " by position (the file's per-position shares)");
  } else if (run.spec_accept_length > 0.0) {
    if (run.spec_accept_length > n + 1 + 1e-9) {
      return Unmapped{"accepted length " + length + " per step is above 1 + " + std::to_string(n) + " drafts"};
    }
    const double r = uniform_acceptance_rate(run.spec_accept_length, n);
    rates = {r};
    note("MTP, " + std::to_string(n) + " drafts per step, each accepted at " + fixed(r, 3) +
         " given the ones before: the accepted length " + length + " the run reports");
  } else {
    return Unmapped{"speculative decoding by MTP with " + std::to_string(n) +
                    " drafts per step, but the file gives no acceptance: give --acceptance-length (the mean accepted "
                    "tokens per step the engine's log reports)"};
  }
  return nlohmann::json{{"method", "mtp"}, {"num_draft_tokens", n}, {"acceptance_rates", rates}};
}

}  // namespace fleetcast::validation
