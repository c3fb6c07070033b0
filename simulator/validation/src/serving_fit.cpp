#include "fleetcast/validation/serving_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/model_scope.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/validation/closed_loop_replay.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "fleetcast/validation/validate_runs.hpp"
#include "levenberg_marquardt.hpp"
#include "profile_parameters.hpp"

namespace fleetcast::validation {
namespace {

std::uint64_t fnv1a64(const std::string& bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a64(bytes)));
  return buf;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string format_ms(double seconds) { return format_number(seconds * 1e3); }

// The rows' client mapping, as the fitted sources name it.
std::string client_mapping_text(std::optional<traces::CsvClientMapping> mapping) {
  if (!mapping) return "";
  switch (*mapping) {
    case traces::CsvClientMapping::drawn_lengths:
      return "; InferenceX rows at the lengths its client drew (0.8-1 x), the others at fixed lengths "
             "(--drawn-lengths)";
    case traces::CsvClientMapping::fixed_lengths:
      return "; every row at fixed lengths (--fixed-lengths)";
    case traces::CsvClientMapping::as_run:
      return "; rows mapped as their benchmark clients ran them (--benchmark-clients)";
  }
  return "";
}

struct Row {
  traces::MeasuredServingRun run;
  specs::ScenarioSpec scenario;
};

// log of: GEMM factor, attention eff., memory eff., step overhead (s), NVLink eff., per-sequence overhead (s),
// front-end time per request (s), then the routed experts' kernel efficiency for each experts' weight format among
// the training rows' MoE models (none for dense rows: a format no row runs would have no effect on the residuals),
// then, if asked for and where the training rows hold both dense and MoE models, the experts' weight streaming
// against the dense weights' (with one kind alone it and the HBM efficiency would move the same residuals).
constexpr int kCommonParams = 7;
using Params = Eigen::VectorXd;

// What a fit adjusts beyond the common parameters.
struct FitShape {
  std::vector<std::string> expert_formats;
  bool expert_memory = false;
  bool eager_launch = false;
  Eigen::Index size() const {
    return kCommonParams + static_cast<Eigen::Index>(expert_formats.size()) + (expert_memory ? 1 : 0) +
           (eager_launch ? 1 : 0);
  }
  Eigen::Index expert_memory_index() const { return kCommonParams + static_cast<Eigen::Index>(expert_formats.size()); }
  Eigen::Index eager_launch_index() const { return expert_memory_index() + (expert_memory ? 1 : 0); }
};

// `p`'s parameters, its GEMM factor against `base`'s matmul efficiencies (1 for base itself: the largest ratio,
// which gives back every class of a fit, whose classes are base's times one factor capped at 1). From the datasheet
// profile, the host costs it lacks (0) start at small values a step in log space moves from; from a fit, at its own
// values within apply()'s clamps.
Params initial(const calibration::Profile& p, const calibration::Profile& base, bool from_datasheet,
               const FitShape& shape) {
  const std::vector<std::string>& expert_formats = shape.expert_formats;
  Params t(shape.size());
  t.head(kCommonParams) << std::log(detail::gemm_factor(p, base)), std::log(p.attention_compute_efficiency),
      std::log(p.memory_efficiency), std::log(std::max(p.step_overhead_s, 1e-5)), std::log(p.nvlink_efficiency),
      std::log(std::max(p.sequence_overhead_s, from_datasheet ? 2e-5 : 1e-7)),
      std::log(std::max(p.request_overhead_s, from_datasheet ? 5e-3 : 1e-5));
  for (std::size_t k = 0; k < expert_formats.size(); ++k) {
    t(kCommonParams + static_cast<Eigen::Index>(k)) = std::log(p.expert_kernel_efficiency_for(expert_formats[k]));
  }
  if (shape.expert_memory) t(shape.expert_memory_index()) = std::log(p.expert_memory_efficiency);
  // From the datasheet profile at 20 us a kernel: a prompt iteration's launches then cost about a tenth of what the
  // TensorRT-LLM logs measure, a start the descent moves from in both directions.
  if (shape.eager_launch) t(shape.eager_launch_index()) = std::log(std::max(p.eager_launch_s, 2e-5));
  return t;
}

// The bounded fit's ceilings (serving_fit.hpp) on attention and HBM streaming are kernel_caveats.hpp's, so that a
// bounded fit is never flagged as above the kernels.
using calibration::kMaxAttentionEfficiency;
using calibration::kMaxMemoryEfficiency;
// The bounded fit's prior: each efficiency log-normal around the datasheet figure, one standard deviation a
// factor of 1.5.
const double kPriorSigma = std::log(1.5);
constexpr int kPriorParams[] = {0, 1, 2, 4};

// The box each parameter is kept in, in log space: the bounded fit's ceilings, efficiencies at most 1, host costs
// within plausible ranges (the host time per step at most ServingFitOptions::max_step_overhead_s), and a grouped expert
// GEMM never faster nor streaming faster than a dense one. The descent works inside it: a parameter past its edge would
// have no effect on the residuals, so a forward difference there is zero and the parameter could never come back. The
// unbounded GEMM factor has no ceiling of its own (each class is capped at 1).
struct Box {
  Params lo, hi;
};
Box box(const ServingFitOptions& options, Eigen::Index params) {
  const bool bounded = options.bounded;
  const double inf = std::numeric_limits<double>::infinity();
  Box b{Params::Constant(params, std::log(0.02)), Params::Zero(params)};  // the experts' kernel and memory ones
  b.lo.head(kCommonParams) << -inf, -inf, -inf, std::log(1e-5), -inf, std::log(1e-7), std::log(1e-5);
  b.hi.head(kCommonParams) << (bounded ? 0.0 : inf), std::log(bounded ? kMaxAttentionEfficiency : 1.0),
      std::log(bounded ? kMaxMemoryEfficiency : 1.0), std::log(options.max_step_overhead_s), 0.0, std::log(1e-3),
      std::log(0.5);
  if (options.fit_eager_launch) {  // the last parameter: 0.1 us to 0.5 ms a kernel
    b.lo(params - 1) = std::log(1e-7);
    b.hi(params - 1) = std::log(5e-4);
  }
  return b;
}

calibration::Profile apply(const calibration::Profile& base, const Params& t, const ServingFitOptions& options,
                           const FitShape& shape) {
  const std::vector<std::string>& expert_formats = shape.expert_formats;
  const Box limits = box(options, t.size());
  const Params x = t.cwiseMax(limits.lo).cwiseMin(limits.hi).array().exp();
  calibration::Profile p = base;
  detail::set_shared_parameters(p, base, x);
  p.request_overhead_s = x(6);
  p.expert_kernel_efficiency.clear();  // formats no training row runs stay at 1
  for (std::size_t k = 0; k < expert_formats.size(); ++k) {
    p.expert_kernel_efficiency[expert_formats[k]] = x(kCommonParams + static_cast<Eigen::Index>(k));
  }
  p.expert_memory_efficiency = shape.expert_memory ? x(shape.expert_memory_index()) : 1.0;
  if (shape.eager_launch) p.eager_launch_s = x(shape.eager_launch_index());
  return p;
}

// log(predicted / measured) TTFT and TPOT per row, the rows spread over `threads` threads (the replay keeps
// no global state, unlike a SimGrid simulation). With `datasheet`, each row's model takes `profile` as a forecast of
// it would (calibration::scope_to_model: a dense model on a fit made on MoE models alone); without, as it is (the
// descent's trial profiles name no models).
Eigen::VectorXd residuals(const std::vector<const Row*>& rows, const calibration::Profile& profile, int threads,
                          const calibration::Profile* datasheet = nullptr) {
  Eigen::VectorXd r(2 * static_cast<Eigen::Index>(rows.size()));
  auto work = [&](std::size_t first) {
    for (std::size_t i = first; i < rows.size(); i += static_cast<std::size_t>(threads)) {
      const ReplayMeans m =
          datasheet ? replay_closed_loop(rows[i]->scenario,
                                         calibration::scope_to_model(profile, rows[i]->scenario.model, *datasheet))
                    : replay_closed_loop(rows[i]->scenario, profile);
      const auto k = static_cast<Eigen::Index>(2 * i);
      r(k) = std::log(std::max(m.ttft_ms, 1e-6) / rows[i]->run.ttft_ms);
      r(k + 1) = std::log(std::max(m.tpot_ms, 1e-6) / rows[i]->run.tpot_ms);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, static_cast<std::size_t>(t));
  work(0);
  for (auto& t : pool) t.join();
  return r;
}

// Median and p90 absolute percentage error and median predicted / measured of the even (TTFT) or odd (TPOT) entries.
calibration::ErrorFigures figures(const Eigen::VectorXd& r, Eigen::Index first) {
  std::vector<double> ape, ratio;
  for (Eigen::Index i = first; i < r.size(); i += 2) {
    ape.push_back(std::abs(std::exp(r(i)) - 1.0));
    ratio.push_back(std::exp(r(i)));
  }
  const ErrorSummary e = summarise_errors(ape);
  return {e.median, e.p90, summarise_errors(ratio).median};
}

ServingFitScore score(const Eigen::VectorXd& r) {
  return {static_cast<int>(r.size() / 2), figures(r, 0), figures(r, 1)};
}

}  // namespace

bool held_out(const std::string& id) { return fnv1a64(id) % 5 == 0; }

std::string serving_run_model(const traces::MeasuredServingRun& run) {
  return serving_group_parts(serving_run_group(run)).front();
}

// `datasheet` with the pair's measured marginal prompt ratio as its prompt slowdown
// (ServingFitOptions::prompt_slowdown), which every profile the fit builds from it keeps; as it is without the option.
calibration::Profile with_prompt_slowdown(calibration::Profile datasheet, const specs::HardwareSpec& hw,
                                          const std::string& runtime, const ServingFitOptions& options,
                                          const std::string& file) {
  if (!options.prompt_slowdown) return datasheet;
  if (options.measured_prompt_ratio) {  // measured by the caller (a fold that never saw one model)
    datasheet.prompt_slowdown = *options.measured_prompt_ratio;
    datasheet.sources["prompt_slowdown"] =
        "the measured marginal_prompt_ratio of " + hw.name + " " + runtime +
        " without the left-out model's runs, kept fixed by the fit (--prompt-slowdown)";
    if (options.model_kind.empty()) datasheet.marginal_prompt_ratio = *options.measured_prompt_ratio;
    return datasheet;
  }
  const calibration::Profile pair = calibration::profile_for(hw, runtime);
  if (pair.marginal_prompt_ratio.empty()) {
    throw InputError(file, "marginal_prompt_ratio", hw.name + " " + runtime,
                     "--prompt-slowdown needs the pair's measured marginal prompt ratio in its profile in use: run "
                     "`fleetcast calibrate prompt-ratio --silicon FILE --profiles DIR` and give "
                     "FLEETCAST_PROFILE_DIR=DIR");
  }
  datasheet.prompt_slowdown = pair.marginal_prompt_ratio;
  datasheet.sources["prompt_slowdown"] = "the measured marginal_prompt_ratio of " + hw.name + " " + runtime +
                                         ", kept fixed by the fit (--prompt-slowdown)";
  if (options.model_kind.empty()) {  // a fit for one kind of model is not what carries
    datasheet.marginal_prompt_ratio = pair.marginal_prompt_ratio;
    const auto source = pair.sources.find("marginal_prompt_ratio");
    if (source != pair.sources.end()) datasheet.sources["marginal_prompt_ratio"] = source->second;
  }
  return datasheet;
}

ServingFit fit_serving_profile(const traces::MeasuredServingResults& results, const std::string& hardware,
                               const std::string& runtime, const ServingFitOptions& options) {
  const specs::HardwareSpec hw = specs::hardware_preset(hardware);
  // A fit for one kind of model starts from (and is scored against) the pair's fit for that kind where one ships.
  const auto kind_in_use =
      options.model_kind.empty() ? std::nullopt : calibration::kind_profile_for(hw, runtime, options.model_kind);
  const calibration::Profile in_use = kind_in_use ? *kind_in_use : calibration::profile_for(hw, runtime);
  const calibration::Profile base =
      with_prompt_slowdown(calibration::datasheet_profile_for(hw, runtime), hw, runtime, options, results.file);
  ServingFit fit;
  std::vector<Row> rows;
  for (const auto& run : results.runs) {
    if (run.mode != "agg" || run.backend != runtime) continue;
    auto m = map_serving_run(run);
    auto* mapped = std::get_if<MappedRun>(&m);
    if (!mapped || mapped->scenario["deployment"]["hardware"] != hardware) continue;
    try {
      Row row{run, specs::parse_scenario(mapped->scenario, results.file)};
      if (!options.model_kind.empty() && calibration::architecture_of(row.scenario.model) != options.model_kind)
        continue;
      replay_closed_loop(row.scenario, in_use);  // the model fits and a step can be formed
      rows.push_back(std::move(row));
    } catch (const InputError& e) {
      fit.skipped.push_back(run.id + ": " + e.problem());
    }
  }
  std::vector<const Row*> train, test;
  for (const Row& r : rows) {
    const bool test_row =
        options.leave_out_model.empty() ? held_out(r.run.id) : serving_run_model(r.run) == options.leave_out_model;
    (test_row ? test : train).push_back(&r);
  }
  if (static_cast<int>(train.size()) > options.max_train_rows) {
    std::vector<const Row*> spaced;
    for (int i = 0; i < options.max_train_rows; ++i) {
      spaced.push_back(
          train[static_cast<std::size_t>(i) * train.size() / static_cast<std::size_t>(options.max_train_rows)]);
    }
    train = std::move(spaced);
  }
  for (const Row* r : train) ++fit.train_rows_by_model[serving_run_model(r->run)];
  // The experts' weight formats of the training rows' MoE models, and per format the rows of each model.
  std::map<std::string, std::map<std::string, int>> formats;
  for (const Row* r : train) {
    if (options.fit_experts && r->scenario.model.moe)
      ++formats[std::string(specs::to_string(r->scenario.model.precision.experts))][serving_run_model(r->run)];
  }
  FitShape shape;
  for (const auto& [format, models] : formats) shape.expert_formats.push_back(format);
  // Both kinds of model among the training rows: the experts' weight streaming is told apart from the dense weights'.
  std::set<std::string> moe_models, dense_models;
  for (const Row* r : train) (r->scenario.model.moe ? moe_models : dense_models).insert(serving_run_model(r->run));
  shape.expert_memory = options.fit_expert_memory && !moe_models.empty() && !dense_models.empty();
  shape.eager_launch = options.fit_eager_launch;
  const Eigen::Index params = shape.size();
  if (train.size() < 6) {  // --train-rows' floor: 12 residuals (TTFT and TPOT per row), 7-10 parameters here
    throw InputError(results.file, "rows", hardware + " " + runtime,
                     std::to_string(train.size()) + " training rows: at least 6 are needed to fit " +
                         std::to_string(params) + " parameters");
  }

  // The start, and the bounded fit's prior's centre.
  const Params theta0 = initial(base, base, true, shape);
  // The data residuals, then (bounded) the prior's: (log x - log x0) / sigma per efficiency.
  const auto objective = [&](const Params& t) {
    Eigen::VectorXd data = residuals(train, apply(base, t, options, shape), options.threads);
    if (options.robust) data = data.unaryExpr(&detail::huber_residual);
    for (Eigen::Index k = 0; k < data.size(); k += 2) data(k) *= options.ttft_weight;
    if (!options.bounded) return data;
    Eigen::VectorXd all(data.size() + static_cast<Eigen::Index>(std::size(kPriorParams)));
    all << data, Eigen::VectorXd::Zero(static_cast<Eigen::Index>(std::size(kPriorParams)));
    for (std::size_t k = 0; k < std::size(kPriorParams); ++k) {
      all(data.size() + static_cast<Eigen::Index>(k)) = (t(kPriorParams[k]) - theta0(kPriorParams[k])) / kPriorSigma;
    }
    return all;
  };

  fit.before_train = score(residuals(train, in_use, options.threads));
  if (!test.empty()) fit.before_held_out = score(residuals(test, in_use, options.threads, &base));
  if (options.max_iterations == 0) {  // a score of the profile in use, as it is
    fit.profile = in_use;
    fit.after_train = fit.before_train;
    fit.after_held_out = fit.before_held_out;
    return fit;
  }
  using detail::Descent;
  // Levenberg-Marquardt from `start`, inside the box (levenberg_marquardt.hpp).
  const Box limits = box(options, params);
  const auto descend = [&](const Params& start) {
    return detail::levenberg_marquardt(objective, start, limits.lo, limits.hi, options.max_iterations);
  };
  // --refine with a fit in use: no descent from the datasheet profile; its end stands at an infinite cost, so the
  // descent from the fit in use is the one kept.
  const bool refine = options.refine && in_use.kind != "datasheet";
  Descent best = refine ? Descent{theta0, std::numeric_limits<double>::infinity(), 0} : descend(theta0);
  if (in_use.kind != "datasheet" && !options.from_datasheet) {
    const Descent from_fit = descend(initial(in_use, base, false, shape));
    if (from_fit.cost < best.cost) {
      best = from_fit;
      fit.started_from = "profile in use";
    }
  }
  fit.iterations = best.iterations;
  fit.profile = apply(base, best.theta, options, shape);
  fit.profile.kind = "fitted";
  fit.profile.runtime = runtime;
  fit.profile.model_kind = options.model_kind;
  for (const auto& [model, n] : fit.train_rows_by_model) fit.profile.fitted_models.push_back(model);
  fit.after_train = score(residuals(train, fit.profile, options.threads));
  if (!test.empty()) fit.after_held_out = score(residuals(test, fit.profile, options.threads, &base));
  const std::string source =
      "fitted to " + std::to_string(train.size()) + " measured " + runtime + " runs on " + hardware + " (" +
      results.file + ", fnv1a64 " + file_hash(results.file) +
      (options.leave_out_model.empty() ? ", held out: every id whose FNV-1a 64 hash is 0 mod 5"
                                       : ", held out: every row of " + options.leave_out_model) +
      ") by `fleetcast calibrate serving`" +
      (options.bounded ? ", bounded by the kernel-level figures with a log-normal prior "
                         "(sigma: a factor 1.5) around the datasheet profile"
                       : "") +
      (options.robust ? ", Huber loss on the log errors beyond a factor 1.5" : "") +
      (options.max_step_overhead_s < ServingFitOptions{}.max_step_overhead_s
           ? ", host time per step at most " + format_ms(options.max_step_overhead_s) + " ms"
           : std::string()) +
      (options.ttft_weight < 1.0 ? ", TTFT residuals weighed " + format_number(options.ttft_weight) + " x TPOT's"
                                 : std::string()) +
      (fit.started_from == "profile in use"
           ? (refine ? ", from the fit in use alone (--refine)"
                     : ", from the fit in use (a lower training cost than from the datasheet profile)")
           : "") +
      client_mapping_text(options.client_mapping) +
      (options.prompt_slowdown ? ", prompts slowed by the measured marginal prompt ratio (--prompt-slowdown)" : "") +
      (options.model_kind.empty() ? std::string()
                                  : "; the " + options.model_kind + " models' rows alone (--models " +
                                        options.model_kind + "), for forecasts of " + options.model_kind + " models");
  for (const char* field : {"attention_compute_efficiency", "memory_efficiency", "step_overhead_s", "nvlink_efficiency",
                            "sequence_overhead_s", "request_overhead_s"}) {
    fit.profile.sources[field] = source;
  }
  // One per experts' format the training rows run; rows of dense models alone fit none.
  // Which models set each one: a format fitted to one model's rows may describe that model more than its kernels
  // (docs/ACCURACY.md, "The experts' kernel efficiency by weight format").
  for (const auto& [format, models] : formats) {
    std::string set_by;
    for (const auto& [model, rows] : models) {
      set_by += (set_by.empty() ? "" : ", ") + model + " (" + std::to_string(rows) + " rows)";
    }
    fit.profile.sources["expert_kernel_efficiency." + format] =
        source + "; set by the training rows of " + set_by + " of " + std::to_string(train.size());
  }
  if (shape.eager_launch) {
    fit.profile.sources["eager_launch_s"] =
        source + "; host time per kernel of a prompt iteration run eagerly (the step model's launch_wait)";
  }
  if (shape.expert_memory) {
    const auto names = [](const std::set<std::string>& models) {
      std::string out;
      for (const std::string& m : models) out += (out.empty() ? "" : ", ") + m;
      return out;
    };
    fit.profile.sources["expert_memory_efficiency"] = source + "; the MoE models' (" + names(moe_models) +
                                                      ") routed experts against the dense models' (" +
                                                      names(dense_models) + ") weights";
  }
  for (const auto& [cls, eff] : fit.profile.matmul_efficiency) {
    fit.profile.sources["matmul_efficiency." + cls] = source + "; one factor on every compute class";
  }
  // A figure outside what the kernels reach says so where a reader of the profile looks (kernel_caveats.hpp).
  fit.caveats = calibration::kernel_caveats(fit.profile, base);
  for (const calibration::KernelCaveat& c : fit.caveats) {
    fit.profile.sources[c.field] +=
        c.above ? "; " + calibration::describe(c) +
                      " (faster than any kernel measured: it stands in for time the step model counts and the engine "
                      "does not spend)"
                : "; " + calibration::describe(c) +
                      " (slower than the kernels measure by 2x or more: it stands in for a slowdown the step model "
                      "does not describe)";
  }
  return fit;
}

}  // namespace fleetcast::validation
