#pragma once
// JSON has no NaN or infinity, so reports write null for "no value" (an empty
// summary) instead of relying on the serializer's silent conversion.

#include <cmath>

#include <nlohmann/json.hpp>

namespace fleetcast::stats {

inline nlohmann::json number_or_null(double x) {
  if (!std::isfinite(x)) return nullptr;
  return x;
}

}  // namespace fleetcast::stats
