#include "fleetcast/engine/check.hpp"

#include <cmath>
#include <cstdio>

namespace fleetcast::engine {

double tolerance_for(std::string_view dtype) {
  if (dtype == "fp32") return 2e-4;
  // Block-scaled GEMMs are compared with the product of the same dequantised operands: bf16 out.
  if (dtype == "bf16" || dtype == "fp8" || dtype == "fp8_block" || dtype == "mxfp8" || dtype == "nvfp4")
    return 1.0 / 64.0;
  return 0.0;
}

std::vector<std::int64_t> sample_indices(std::int64_t count, std::int64_t cap, bool full) {
  std::vector<std::int64_t> out;
  if (count <= 0) return out;
  if (full || count <= cap) {
    out.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) out[static_cast<std::size_t>(i)] = i;
    return out;
  }
  for (std::int64_t s = 0; s < cap; ++s) {
    const std::int64_t i = cap == 1 ? 0 : s * (count - 1) / (cap - 1);
    if (out.empty() || out.back() != i) out.push_back(i);
  }
  return out;
}

void Comparison::add(double got, double expected, std::size_t where) { entries_.push_back({got, expected, where}); }

void Comparison::add_exact(double got, double expected, std::size_t where) {
  ++exact_compared_;
  if (got != expected) exact_mismatches_.push_back({got, expected, where});
}

namespace {

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", x);
  return buf;
}

}  // namespace

CheckResult Comparison::finish() const {
  if (!exact_mismatches_.empty()) {
    const auto& e = exact_mismatches_.front();
    throw CheckFailed(what_ + ": result differs from the CPU reference at output " + std::to_string(e.where) +
                      ": got " + number(e.got) + ", expected " + number(e.expected) + " (" +
                      std::to_string(exact_mismatches_.size()) + " of " + std::to_string(exact_compared_) +
                      " exact values differ)");
  }
  double sum_sq = 0.0;
  for (const auto& e : entries_) sum_sq += e.expected * e.expected;
  const double rms = entries_.empty() ? 0.0 : std::sqrt(sum_sq / static_cast<double>(entries_.size()));
  const double floor = rms > 0.0 ? rms : 1e-30;
  CheckResult r;
  r.compared = entries_.size() + exact_compared_;
  const Entry* worst = nullptr;
  for (const auto& e : entries_) {
    // NaN compares false everywhere: count it as an infinite error, never as a pass.
    const double err = std::isfinite(e.got) ? std::fabs(e.got - e.expected) / std::max(std::fabs(e.expected), floor)
                                            : INFINITY;
    if (worst == nullptr || err > r.max_rel_error) {
      r.max_rel_error = err;
      worst = &e;
    }
  }
  if (worst != nullptr && !(r.max_rel_error <= tolerance_)) {
    throw CheckFailed(what_ + ": result differs from the CPU reference at output " + std::to_string(worst->where) +
                      ": got " + number(worst->got) + ", expected " + number(worst->expected) +
                      ", relative error " + number(r.max_rel_error) + " > tolerance " + number(tolerance_));
  }
  return r;
}

}  // namespace fleetcast::engine
