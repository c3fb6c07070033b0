#include "fleetcast/calibration/held_out.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::calibration {
namespace {

// The constant string shape fields, as fit_profile() names a predictor's variant.
std::string variant_of(const traces::CalibrationMeasurement& m) {
  std::string v;
  for (const auto& [key, value] : m.shape.items()) {
    if (value.is_string()) v += (v.empty() ? "" : ",") + key + "=" + value.get<std::string>();
  }
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

HeldOutCheck check_held_out(const Profile& profile, const traces::CalibrationTrace& trace, const std::string& file) {
  HeldOutCheck r;
  std::map<std::pair<std::string, std::string>, std::vector<double>> apes;
  for (std::size_t i = 0; i < trace.measurements.size(); ++i) {
    const auto& m = trace.measurements[i];
    if (m.op == kModelStepOp || is_collective_op(m.op) || m.median_s <= 0.0) continue;
    const std::string variant = variant_of(m);
    const auto it = std::find_if(profile.predictors.begin(), profile.predictors.end(), [&](const OpPredictor& p) {
      return p.op == m.op && p.dtype == m.dtype && p.variant == variant;
    });
    if (it == profile.predictors.end()) {
      ++r.unpredicted;
      continue;
    }
    std::vector<double> q;
    for (const auto& dim : it->dims) {
      if (!m.shape.contains(dim) || !m.shape.at(dim).is_number()) {
        throw InputError(file + ":" + std::to_string(i + 2), "shape." + dim, m.shape.dump(),
                         "the profile's " + m.op + " predictor varies this dim: the measurement must give it");
      }
      q.push_back(m.shape.at(dim).get<double>());
    }
    const double predicted = it->predict(q, m.flops, m.bytes);
    apes[{m.op, m.dtype}].push_back(std::abs(predicted - m.median_s) / m.median_s);
  }
  for (const auto& [key, v] : apes) {
    HeldOutOp o;
    o.op = key.first;
    o.dtype = key.second;
    o.points = static_cast<int>(v.size());
    o.median_ape = median(v);
    o.max_ape = *std::max_element(v.begin(), v.end());
    for (const auto& q : profile.quality) {
      if (q.op == o.op && q.dtype == o.dtype) {
        o.reported_loo_median_ape = std::max(o.reported_loo_median_ape, q.loo_median_ape);
        o.reported_loo_max_ape = std::max(o.reported_loo_max_ape, q.loo_max_ape);
      }
    }
    o.within = o.median_ape <= o.reported_loo_max_ape;
    r.ops.push_back(o);
  }
  return r;
}

}  // namespace fleetcast::calibration
