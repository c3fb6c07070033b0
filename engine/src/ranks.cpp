#include "fleetcast/engine/ranks.hpp"

#include <optional>
#include <string>

namespace fleetcast::engine {

CheckResult check_on_every_rank(Ranks& ranks, const std::function<CheckResult()>& check) {
  CheckResult mine;
  std::optional<CheckFailed> failure;
  try {
    mine = check();
  } catch (const CheckFailed& e) {
    failure = e;
  }
  // One reduction: the first failing rank (ranks are encoded as size - rank so that max finds the lowest),
  // and the largest error.
  const double failed_code = failure ? static_cast<double>(ranks.size() - ranks.rank()) : 0.0;
  const auto agreed = ranks.max({failed_code, mine.max_rel_error});
  if (failure) throw *failure;
  if (agreed[0] > 0.0) {
    const int failing = ranks.size() - static_cast<int>(agreed[0]);
    throw CheckFailed("rank " + std::to_string(failing) + " of " + std::to_string(ranks.size()) +
                      " failed its check (its message is above)");
  }
  mine.max_rel_error = agreed[1];
  return mine;
}

}  // namespace fleetcast::engine
