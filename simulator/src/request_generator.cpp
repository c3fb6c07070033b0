#include "fleetcast/simulator/request_generator.hpp"

#include <algorithm>
#include <cmath>

#include "fleetcast/simulator/random.hpp"

namespace fleetcast::simulator {
namespace {

int draw_length(const specs::LengthDistribution& d, Random& rng, int max_context) {
  switch (d.kind) {
    case specs::LengthKind::fixed: return d.value;
    case specs::LengthKind::uniform:
      return d.min + static_cast<int>(rng.below(static_cast<std::uint64_t>(d.max - d.min + 1)));
    case specs::LengthKind::lognormal: {
      const double x = d.median * std::exp(d.sigma * rng.normal());
      const int hi = d.max > 0 ? d.max : max_context;
      return std::clamp(static_cast<int>(std::lround(x)), std::max(1, d.min), hi);
    }
    case specs::LengthKind::empirical: return d.values[rng.below(d.values.size())];
  }
  return 1;
}

}  // namespace

std::vector<Request> generate_requests(const specs::WorkloadSpec& w, std::int64_t count, double rate_per_s,
                                       std::uint64_t seed, int max_context) {
  Random arrivals(seed, 1), inputs(seed, 2), outputs(seed, 3);
  std::vector<Request> requests(static_cast<std::size_t>(count));
  double t = 0.0;
  const auto& a = w.arrival;
  // Gamma inter-arrival times with mean 1/rate and coefficient of variation cv: shape 1/cv^2.
  const double shape = a.kind == specs::ArrivalKind::gamma ? 1.0 / (a.cv * a.cv) : 1.0;
  for (std::int64_t i = 0; i < count; ++i) {
    Request& r = requests[static_cast<std::size_t>(i)];
    r.id = i;
    r.input_tokens = draw_length(w.input_tokens, inputs, max_context);
    r.output_tokens = draw_length(w.output_tokens, outputs, max_context);
    switch (a.kind) {
      case specs::ArrivalKind::poisson: t += arrivals.exponential(1.0 / rate_per_s); break;
      case specs::ArrivalKind::gamma: t += arrivals.gamma(shape, 1.0 / (rate_per_s * shape)); break;
      case specs::ArrivalKind::closed_loop: continue;
    }
    r.arrival_s = t;
  }
  return requests;
}

}  // namespace fleetcast::simulator
