// A profile fitted to measured engine iterations (step_fit.hpp).
#include "fleetcast/validation/step_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/stats/summary.hpp"
#include "fleetcast/validation/step_check.hpp"
#include "levenberg_marquardt.hpp"

namespace fleetcast::validation {
namespace {

// log of: GEMM factor on the datasheet rates, attention eff., memory eff., step overhead (s), NVLink eff., sequence
// overhead (s), then for a MoE model its experts' kernel efficiency.
constexpr int kCommonParams = 6;

double huber(double r) {  // quadratic within a factor 1.5, linear beyond
  const double delta = std::log(1.5), a = std::abs(r);
  return a <= delta ? r : std::copysign(std::sqrt(2.0 * delta * (a - delta / 2.0)), r);
}

calibration::Profile apply(const calibration::Profile& datasheet, const calibration::Profile& start,
                           const Eigen::VectorXd& t, const std::string& experts_format) {
  const Eigen::VectorXd x = t.array().exp();
  calibration::Profile p = start;
  p.matmul_efficiency = datasheet.matmul_efficiency;
  for (auto& [cls, eff] : p.matmul_efficiency) eff = std::min(1.0, eff * x(0));
  p.attention_compute_efficiency = x(1);
  p.memory_efficiency = x(2);
  p.step_overhead_s = x(3);
  p.nvlink_efficiency = x(4);
  p.sequence_overhead_s = x(5);
  if (!experts_format.empty()) p.expert_kernel_efficiency = {{experts_format, x(kCommonParams)}};
  return p;
}

StepFitScore score(const std::vector<double>& log_errors) {
  StepFitScore s;
  s.steps = static_cast<int>(log_errors.size());
  std::vector<double> ape;
  for (double r : log_errors) ape.push_back(std::abs(std::exp(r) - 1.0));
  s.median_ape = ape.empty() ? 0.0 : stats::summarize(ape).p50;
  return s;
}

}  // namespace

StepFit fit_step_profile(const specs::ModelSpec& model, const specs::DeploymentSpec& deployment,
                         const calibration::Profile& start, const calibration::Profile& datasheet,
                         const traces::ForwardPassMetrics& fpm, const std::string& file, int max_iterations) {
  const bool speculative = deployment.speculative.has_value();
  std::vector<simulator::BatchShape> train, test;
  std::vector<double> train_s, test_s;
  for (std::size_t i = 0; i < fpm.steps.size(); ++i) {
    const bool held = i % 5 == 4;
    (held ? test : train).push_back(batch_of(fpm.steps[i], speculative));
    (held ? test_s : train_s).push_back(fpm.steps[i].latency_s);
  }
  if (train.size() < 10) {
    throw InputError(file, "steps", std::to_string(fpm.steps.size()),
                     "too few engine iterations to fit a profile to: at least 12 are needed (every fifth is held out)");
  }
  const std::string experts_format = model.moe ? std::string(specs::to_string(model.precision.experts)) : "";
  const Eigen::Index params = kCommonParams + (experts_format.empty() ? 0 : 1);
  const auto log_errors = [&](const calibration::Profile& p, const std::vector<simulator::BatchShape>& batches,
                              const std::vector<double>& measured) {
    const simulator::StepTimeModel m(model, deployment, p);
    std::vector<double> r;
    for (std::size_t i = 0; i < batches.size(); ++i) r.push_back(std::log(m.predict(batches[i]).total_s / measured[i]));
    return r;
  };
  Eigen::VectorXd lo(params), hi(params);
  const auto objective = [&](const Eigen::VectorXd& t) {
    const std::vector<double> r =
        log_errors(apply(datasheet, start, t.cwiseMax(lo).cwiseMin(hi), experts_format), train, train_s);
    Eigen::VectorXd v(static_cast<Eigen::Index>(r.size()));
    for (std::size_t i = 0; i < r.size(); ++i) v(static_cast<Eigen::Index>(i)) = huber(r[i]);
    return v;
  };
  // The start: `start`'s figures, its GEMMs as one factor on the datasheet rates (the largest ratio).
  double gemm_factor = 0.0;
  for (const auto& [cls, eff] : start.matmul_efficiency) {
    const auto it = datasheet.matmul_efficiency.find(cls);
    if (it != datasheet.matmul_efficiency.end() && it->second > 0.0)
      gemm_factor = std::max(gemm_factor, eff / it->second);
  }
  Eigen::VectorXd t0(params);
  t0.head(kCommonParams) << std::log(gemm_factor > 0.0 ? gemm_factor : 1.0),
      std::log(start.attention_compute_efficiency), std::log(start.memory_efficiency),
      std::log(std::max(start.step_overhead_s, 1e-5)), std::log(start.nvlink_efficiency),
      std::log(std::max(start.sequence_overhead_s, 2e-5));
  if (!experts_format.empty()) t0(kCommonParams) = std::log(start.expert_kernel_efficiency_for(experts_format));
  // Efficiencies at most the best kernel-level figures (GEMMs at the datasheet's MAMF rates, attention and HBM
  // streaming at kernel_caveats.hpp's ceilings): a step's parts trade against each other (under TP the all-reduces
  // against the GEMMs and weight reads), and an unbounded fit buys a slow all-reduce with GEMMs at peak. Host time
  // per step 10 us to 100 ms and per sequence 0.1 us to 1 ms, the experts at 2% to 100% of a dense GEMM's rate.
  const double no_floor = -std::numeric_limits<double>::infinity();
  lo.head(kCommonParams) << no_floor, no_floor, no_floor, std::log(1e-5), no_floor, std::log(1e-7);
  hi.head(kCommonParams) << 0.0, std::log(calibration::kMaxAttentionEfficiency),
      std::log(calibration::kMaxMemoryEfficiency), std::log(0.1), 0.0, std::log(1e-3);
  // One GPU runs no collective: its steps say nothing of NVLink, which keeps the start's figure.
  if (deployment.replica.gpus() == 1) lo(4) = hi(4) = t0(4);
  if (!experts_format.empty()) {
    lo(kCommonParams) = std::log(0.02);
    hi(kCommonParams) = 0.0;
  }
  const detail::Descent d = detail::levenberg_marquardt(objective, t0, lo, hi, max_iterations);

  StepFit fit;
  fit.iterations = d.iterations;
  fit.profile = apply(datasheet, start, d.theta.cwiseMax(lo).cwiseMin(hi), experts_format);
  fit.profile.kind = "measured";
  fit.profile.runtime = deployment.runtime;
  fit.profile.fitted_models = {model.name};
  fit.before_train = score(log_errors(start, train, train_s));
  fit.after_train = score(log_errors(fit.profile, train, train_s));
  fit.before_held_out = score(log_errors(start, test, test_s));
  fit.after_held_out = score(log_errors(fit.profile, test, test_s));
  const std::string source = "fitted to " + std::to_string(train.size()) + " engine iterations of " + model.name +
                             " (" + file + ", every fifth held out) by `fleetcast calibrate steps`";
  for (const char* field : {"attention_compute_efficiency", "memory_efficiency", "step_overhead_s", "nvlink_efficiency",
                            "sequence_overhead_s"}) {
    fit.profile.sources[field] = source;
  }
  for (const auto& [cls, eff] : fit.profile.matmul_efficiency)
    fit.profile.sources["matmul_efficiency." + cls] = source + "; one factor on the datasheet rate of every class";
  if (!experts_format.empty()) fit.profile.sources["expert_kernel_efficiency." + experts_format] = source;
  return fit;
}

}  // namespace fleetcast::validation
