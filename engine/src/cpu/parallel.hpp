#pragma once
// Splits independent rows over the CPU's threads with OpenMP where the build has it; serial otherwise,
// and serial for small jobs: waking a second thread costs microseconds (milliseconds on a loaded
// machine), more than a few thousand elements of work are worth.

#include <cstdint>

namespace fleetcast::engine::cpu {

// Below this many elements of work in all, one thread does it.
inline constexpr std::int64_t kMinParallelWork = std::int64_t{1} << 17;

// f(i) for i in [0, n); `work_per_item` is about how many elements each call touches.
template <class F>
void parallel_for(std::int64_t n, std::int64_t work_per_item, F&& f) {
#ifdef _OPENMP
  const bool parallel = n > 1 && n * work_per_item >= kMinParallelWork;
#pragma omp parallel for schedule(static) if (parallel)
#endif
  for (std::int64_t i = 0; i < n; ++i) f(i);
}

}  // namespace fleetcast::engine::cpu
