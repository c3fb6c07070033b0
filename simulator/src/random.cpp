#include "fleetcast/simulator/random.hpp"

#include <cmath>

namespace fleetcast::simulator {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Random::Random(std::uint64_t seed, std::uint64_t stream) : engine_(splitmix64(seed ^ splitmix64(stream + 1))) {}

double Random::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

double Random::exponential(double mean) { return -mean * std::log1p(-uniform()); }

double Random::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_ = r * std::sin(2.0 * M_PI * u2);
  has_spare_ = true;
  return r * std::cos(2.0 * M_PI * u2);
}

double Random::gamma(double shape, double scale) {
  if (shape < 1.0) {
    // Boost to shape + 1 and scale back: X_a = X_{a+1} * U^(1/a).
    double u = uniform();
    while (u <= 0.0) u = uniform();
    return gamma(shape + 1.0, scale) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * scale;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * scale;
  }
}

std::uint64_t Random::below(std::uint64_t n) { return static_cast<std::uint64_t>(uniform() * static_cast<double>(n)); }

}  // namespace fleetcast::simulator
