#include "fleetcast/specs/workload.hpp"

#include <algorithm>
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

bool WorkloadSpec::has_open_loop() const {
  return std::any_of(classes.begin(), classes.end(),
                     [](const RequestClass& c) { return c.arrival.kind != ArrivalKind::closed_loop; });
}

bool WorkloadSpec::has_closed_loop() const {
  return std::any_of(classes.begin(), classes.end(),
                     [](const RequestClass& c) { return c.arrival.kind == ArrivalKind::closed_loop; });
}

bool WorkloadSpec::has_prefixes() const {
  return std::any_of(classes.begin(), classes.end(), [](const RequestClass& c) { return c.prefix.has_value(); });
}

bool WorkloadSpec::is_single_class_form() const {
  return classes.size() == 1 && classes[0].name == single_class_name(name);
}

std::string single_class_name(const std::string& workload_name) {
  return workload_name.empty() ? "default" : workload_name;
}

}  // namespace fleetcast::specs
