#pragma once
// Comparing a backend's output with the CPU reference before anything is timed. A mismatch is an error
// (CheckFailed, exit 1), never a number in the trace.
//
// Error measure: |got - expected| / max(|expected|, rms), where rms is the root mean square of the expected
// values compared. Relative to each element where it is larger than typical, relative to the typical
// magnitude where it is near zero (an output that is a small difference of large terms has no meaningful
// relative error of its own).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fleetcast::engine {

class CheckFailed : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct CheckResult {
  double max_rel_error = 0.0;
  std::size_t compared = 0;  // output elements compared
};

// The largest error accepted for results stored as `dtype`: fp32 2e-4 (summation order), bf16 and FP8
// GEMMs (bf16 out) 1.6e-2 (2^-6: a few bf16 roundings), u8 and token ids exact.
double tolerance_for(std::string_view dtype);

// Reads `count` output elements from `offset` (in elements) of one output tensor, as floats.
using ReadRange = std::function<std::vector<float>(std::size_t offset, std::size_t count)>;

// Up to `cap` indices in [0, count), spread evenly, first and last included; all of them when `full` or
// count <= cap. Large GPU cases are checked on such a sample, regenerating only the inputs it needs.
std::vector<std::int64_t> sample_indices(std::int64_t count, std::int64_t cap, bool full);

class Comparison {
public:
  // `what` names the case in messages: "gemm fp32 m=33 n=80 k=128".
  Comparison(std::string what, double tolerance) : what_(std::move(what)), tolerance_(tolerance) {}

  // `where` is the flat output index, for the message.
  void add(double got, double expected, std::size_t where);
  // Integers that must match exactly (token ids, bytes).
  void add_exact(double got, double expected, std::size_t where);

  // Throws CheckFailed naming the case, the worst element, both values and the tolerance.
  CheckResult finish() const;

private:
  struct Entry {
    double got, expected;
    std::size_t where;
  };
  std::string what_;
  double tolerance_;
  std::vector<Entry> entries_;
  std::vector<Entry> exact_mismatches_;
  std::size_t exact_compared_ = 0;
};

}  // namespace fleetcast::engine
