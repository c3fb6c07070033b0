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

std::vector<Request> generate_class_requests(const specs::RequestClass& c, int class_index, std::int64_t count,
                                             double rate_per_s, std::uint64_t seed, int max_context) {
  const auto stream = 3 * static_cast<std::uint64_t>(class_index);
  Random arrivals(seed, stream + 1), inputs(seed, stream + 2), outputs(seed, stream + 3);
  std::vector<Request> requests(static_cast<std::size_t>(count));
  double t = 0.0;
  const auto& a = c.arrival;
  // Gamma inter-arrival times with mean 1/rate and coefficient of variation cv: shape 1/cv^2.
  const double shape = a.kind == specs::ArrivalKind::gamma ? 1.0 / (a.cv * a.cv) : 1.0;
  for (std::int64_t i = 0; i < count; ++i) {
    Request& r = requests[static_cast<std::size_t>(i)];
    r.id = i;
    r.class_index = class_index;
    r.input_tokens = draw_length(c.input_tokens, inputs, max_context);
    r.output_tokens = draw_length(c.output_tokens, outputs, max_context);
    switch (a.kind) {
      case specs::ArrivalKind::poisson: t += arrivals.exponential(1.0 / rate_per_s); break;
      case specs::ArrivalKind::gamma: t += arrivals.gamma(shape, 1.0 / (rate_per_s * shape)); break;
      case specs::ArrivalKind::closed_loop: continue;
    }
    r.arrival_s = t;
  }
  return requests;
}

std::vector<Request> generate_requests(const specs::WorkloadSpec& w, const std::vector<std::int64_t>& counts,
                                       const std::vector<double>& rates_per_s, std::uint64_t seed, int max_context) {
  std::vector<Request> open, closed;
  for (std::size_t k = 0; k < w.classes.size(); ++k) {
    const specs::RequestClass& c = w.classes[k];
    auto part = generate_class_requests(c, static_cast<int>(k), counts[k], rates_per_s[k], seed, max_context);
    auto& into = c.arrival.kind == specs::ArrivalKind::closed_loop ? closed : open;
    into.insert(into.end(), part.begin(), part.end());
  }
  // Classes were appended in index order, so a stable sort breaks ties in arrival time by class.
  std::stable_sort(open.begin(), open.end(),
                   [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
  open.insert(open.end(), closed.begin(), closed.end());
  for (std::size_t i = 0; i < open.size(); ++i) open[i].id = static_cast<std::int64_t>(i);
  return open;
}

}  // namespace fleetcast::simulator
