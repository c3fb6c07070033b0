#include "memcpy_problem.hpp"

#include <algorithm>

#include "fleetcast/engine/fill.hpp"

namespace fleetcast::engine {

CheckResult MemcpyProblem::check(const ReadRange& dst, const std::string& what, bool full) const {
  // 64 runs of 4 KiB: both ends of the buffer and evenly spaced pages between them.
  constexpr std::int64_t kRun = 4096;
  const std::int64_t runs = (bytes + kRun - 1) / kRun;
  Comparison cmp(what, 0.0);
  for (const auto r : sample_indices(runs, 64, full)) {
    const std::int64_t begin = r * kRun, count = std::min(kRun, bytes - r * kRun);
    const auto got = dst(static_cast<std::size_t>(begin), static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
      const auto at = static_cast<std::uint64_t>(begin + i);
      cmp.add_exact(got[i], byte_value(kSeed, at), static_cast<std::size_t>(at));
    }
  }
  return cmp.finish();
}

}  // namespace fleetcast::engine
