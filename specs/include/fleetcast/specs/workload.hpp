#pragma once
// The traffic: how requests arrive and how long their prompts and answers are.

#include <string>
#include <string_view>
#include <vector>

namespace fleetcast::specs {

enum class LengthKind { fixed, uniform, lognormal, empirical };

// Token counts are integers >= 1. lognormal: the log of the length is normal with mean log(median)
// and standard deviation `sigma`; draws are clamped to [min, max].
struct LengthDistribution {
  LengthKind kind = LengthKind::fixed;
  int value = 0;             // fixed
  int min = 1;               // uniform (inclusive), lognormal clamp
  int max = 0;               // uniform (inclusive), lognormal clamp (0: the model's context)
  double median = 0.0;       // lognormal
  double sigma = 0.0;        // lognormal
  std::vector<int> values;   // empirical: drawn uniformly from the list

  double mean() const;  // analytic mean (clamping ignored for lognormal)
  bool operator==(const LengthDistribution&) const = default;
};

enum class ArrivalKind { poisson, gamma, closed_loop };

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::poisson;
  // open loop: give `rate_per_s`, or `load` (share of the fleet's estimated capacity) and the rate follows
  double rate_per_s = 0.0;
  double load = 0.0;
  double cv = 1.0;        // gamma: coefficient of variation of inter-arrival times (1 is Poisson, > 1 bursty)
  int clients = 0;        // closed loop: concurrent clients, each sends its next request when the last finished
  double think_time_s = 0.0;
  bool operator==(const ArrivalSpec&) const = default;
};

struct WorkloadSpec {
  std::string name;
  ArrivalSpec arrival;
  LengthDistribution input_tokens;
  LengthDistribution output_tokens;
  bool operator==(const WorkloadSpec&) const = default;
};

std::string_view to_string(LengthKind k);
std::string_view to_string(ArrivalKind k);

}  // namespace fleetcast::specs
