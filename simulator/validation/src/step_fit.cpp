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
#include "profile_parameters.hpp"

namespace fleetcast::validation {
namespace {

// log of: GEMM factor on the datasheet rates, attention eff., memory eff., step overhead (s), NVLink eff., sequence
// overhead (s), latency of one collective call (s), then per experts' weight format its kernel efficiency.
constexpr int kCommonParams = 7;

calibration::Profile apply(const calibration::Profile& datasheet, const calibration::Profile& start,
                           const Eigen::VectorXd& t, const std::vector<std::string>& experts_formats) {
  const Eigen::VectorXd x = t.array().exp();
  calibration::Profile p = start;
  detail::set_shared_parameters(p, datasheet, x);
  p.collective_latency_s = x(6);
  for (std::size_t k = 0; k < experts_formats.size(); ++k)
    p.expert_kernel_efficiency[experts_formats[k]] = x(kCommonParams + static_cast<Eigen::Index>(k));
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

// One case's steps, split into the four fifths fitted and the fifth held out.
struct CaseSteps {
  const StepCase* c = nullptr;
  std::vector<simulator::BatchShape> train, test;
  std::vector<double> train_s, test_s;
};

}  // namespace

StepFit fit_step_profile(const std::vector<StepCase>& cases, const calibration::Profile& start,
                         const calibration::Profile& datasheet, int max_iterations) {
  if (cases.empty()) throw InputError("", "steps", "", "no measured steps to fit a profile to");
  std::vector<CaseSteps> split;
  std::vector<std::string> experts_formats, models, files;
  bool collectives = false;
  std::size_t train_steps = 0;
  for (const StepCase& c : cases) {
    if (c.deployment.hardware.name != cases[0].deployment.hardware.name ||
        c.deployment.runtime != cases[0].deployment.runtime) {
      throw InputError(c.file, "scenario", c.deployment.hardware.name + " " + c.deployment.runtime,
                       "one profile is fitted for one hardware and runtime: " + cases[0].deployment.hardware.name +
                           " " + cases[0].deployment.runtime + " as the first case");
    }
    CaseSteps cs;
    cs.c = &c;
    const bool speculative = c.deployment.speculative.has_value();
    for (std::size_t i = 0; i < c.fpm.steps.size(); ++i) {
      const bool held = i % 5 == 4;
      (held ? cs.test : cs.train).push_back(batch_of(c.fpm.steps[i], speculative));
      (held ? cs.test_s : cs.train_s).push_back(c.fpm.steps[i].latency_s);
    }
    train_steps += cs.train.size();
    split.push_back(std::move(cs));
    if (c.model.moe) experts_formats.push_back(std::string(specs::to_string(c.model.precision.experts)));
    models.push_back(c.model.name);
    files.push_back(c.file);
    collectives = collectives || c.deployment.replica.gpus() > 1;
  }
  for (auto* v : {&experts_formats, &models}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  if (train_steps < 10) {
    throw InputError(cases[0].file, "steps", std::to_string(train_steps) + " to train on",
                     "too few engine iterations to fit a profile to: at least 12 are needed (every fifth is held out)");
  }
  const Eigen::Index params = kCommonParams + static_cast<Eigen::Index>(experts_formats.size());
  // log(predicted / measured) of every case's training (or held-out) steps, in order.
  const auto log_errors = [&](const calibration::Profile& p, bool held_out) {
    std::vector<double> r;
    for (const CaseSteps& cs : split) {
      const simulator::StepTimeModel m(cs.c->model, cs.c->deployment, p);
      const auto& batches = held_out ? cs.test : cs.train;
      const auto& measured = held_out ? cs.test_s : cs.train_s;
      for (std::size_t i = 0; i < batches.size(); ++i)
        r.push_back(std::log(m.predict(batches[i]).total_s / measured[i]));
    }
    return r;
  };
  Eigen::VectorXd lo(params), hi(params);
  const auto objective = [&](const Eigen::VectorXd& t) {
    const std::vector<double> r =
        log_errors(apply(datasheet, start, t.cwiseMax(lo).cwiseMin(hi), experts_formats), false);
    Eigen::VectorXd v(static_cast<Eigen::Index>(r.size()));
    for (std::size_t i = 0; i < r.size(); ++i) v(static_cast<Eigen::Index>(i)) = detail::huber_residual(r[i]);
    return v;
  };
  // The start: `start`'s figures, its GEMMs as one factor on the datasheet rates.
  Eigen::VectorXd t0(params);
  t0.head(kCommonParams) << std::log(detail::gemm_factor(start, datasheet)),
      std::log(start.attention_compute_efficiency), std::log(start.memory_efficiency),
      std::log(std::max(start.step_overhead_s, 1e-5)), std::log(start.nvlink_efficiency),
      std::log(std::max(start.sequence_overhead_s, 2e-5)), std::log(std::max(start.collective_latency_s, 1e-6));
  for (std::size_t k = 0; k < experts_formats.size(); ++k)
    t0(kCommonParams + static_cast<Eigen::Index>(k)) = std::log(start.expert_kernel_efficiency_for(experts_formats[k]));
  // A collective call 1 us to 100 us. Efficiencies at most the best kernel-level figures (GEMMs at the datasheet's MAMF
  // rates, attention and HBM streaming at kernel_caveats.hpp's ceilings): a step's parts trade against each other
  // (under TP the all-reduces against the GEMMs and weight reads), and an unbounded fit buys a slow all-reduce with
  // GEMMs at peak. Host time per step 10 us to 100 ms and per sequence 0.1 us to 1 ms, the experts at 2% to 100% of a
  // dense GEMM's rate.
  const double no_floor = -std::numeric_limits<double>::infinity();
  lo.head(kCommonParams) << no_floor, no_floor, no_floor, std::log(1e-5), no_floor, std::log(1e-7), std::log(1e-6);
  hi.head(kCommonParams) << 0.0, std::log(calibration::kMaxAttentionEfficiency),
      std::log(calibration::kMaxMemoryEfficiency), std::log(0.1), 0.0, std::log(1e-3), std::log(1e-4);
  // Steps of one GPU run no collective: they say nothing of NVLink or a call's latency, which keep the start's figures.
  if (!collectives) {
    lo(4) = hi(4) = t0(4);
    lo(6) = hi(6) = t0(6);
  }
  for (Eigen::Index k = kCommonParams; k < params; ++k) {
    lo(k) = std::log(0.02);
    hi(k) = 0.0;
  }
  const detail::Descent d = detail::levenberg_marquardt(objective, t0, lo, hi, max_iterations);

  StepFit fit;
  fit.iterations = d.iterations;
  fit.profile = apply(datasheet, start, d.theta.cwiseMax(lo).cwiseMin(hi), experts_formats);
  fit.profile.kind = "measured";
  fit.profile.runtime = cases[0].deployment.runtime;
  fit.profile.fitted_models = models;
  fit.before_train = score(log_errors(start, false));
  fit.after_train = score(log_errors(fit.profile, false));
  fit.before_held_out = score(log_errors(start, true));
  fit.after_held_out = score(log_errors(fit.profile, true));
  std::string names, file_list;
  for (const auto& m : models) names += (names.empty() ? "" : ", ") + m;
  for (const auto& f : files) file_list += (file_list.empty() ? "" : ", ") + f;
  const std::string source = "fitted to " + std::to_string(train_steps) + " engine iterations of " + names + " (" +
                             file_list + ", every fifth held out) by `fleetcast calibrate steps`";
  for (const char* field :
       {"attention_compute_efficiency", "memory_efficiency", "step_overhead_s", "sequence_overhead_s"})
    fit.profile.sources[field] = source;
  if (collectives) {  // else kept at the start's figures, with their sources
    fit.profile.sources["nvlink_efficiency"] = source;
    fit.profile.sources["collective_latency_s"] = source;
  }
  for (const auto& [cls, eff] : fit.profile.matmul_efficiency)
    fit.profile.sources["matmul_efficiency." + cls] = source + "; one factor on the datasheet rate of every class";
  for (const auto& format : experts_formats) fit.profile.sources["expert_kernel_efficiency." + format] = source;
  return fit;
}

StepFit fit_step_profile(const specs::ModelSpec& model, const specs::DeploymentSpec& deployment,
                         const calibration::Profile& start, const calibration::Profile& datasheet,
                         const traces::ForwardPassMetrics& fpm, const std::string& file, int max_iterations) {
  return fit_step_profile({StepCase{model, deployment, fpm, file}}, start, datasheet, max_iterations);
}

}  // namespace fleetcast::validation
