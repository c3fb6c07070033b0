#include "fleetcast/specs/workload.hpp"

#include <cmath>
#include <numeric>

namespace fleetcast::specs {

double LengthDistribution::mean() const {
  switch (kind) {
    case LengthKind::fixed:
      return value;
    case LengthKind::uniform:
      return (static_cast<double>(min) + static_cast<double>(max)) / 2.0;
    case LengthKind::lognormal:
      return median * std::exp(sigma * sigma / 2.0);
    case LengthKind::empirical:
      if (values.empty()) return 0.0;
      return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  }
  return 0.0;
}

}  // namespace fleetcast::specs
