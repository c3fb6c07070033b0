#pragma once
// Seeded randomness with our own samplers: the standard library's distributions differ between
// implementations, and the same scenario and seed must give the same bytes everywhere.

#include <cstdint>
#include <random>

namespace fleetcast::simulator {

class Random {
public:
  // `stream` separates independent sequences drawn from one seed (arrivals, input lengths, ...).
  Random(std::uint64_t seed, std::uint64_t stream);

  double uniform();  // [0, 1) with 53 random bits
  double exponential(double mean);
  double normal();   // standard normal (Box-Muller)
  double gamma(double shape, double scale);  // Marsaglia-Tsang
  std::uint64_t below(std::uint64_t n);      // uniform integer in [0, n)

private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace fleetcast::simulator
