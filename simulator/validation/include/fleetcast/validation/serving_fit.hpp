#pragma once
// Fitting the few parameters of a (hardware, runtime) profile to measured serving runs: GEMM efficiency (one
// factor on every compute class), attention compute efficiency, HBM streaming efficiency, per-step overhead
// NVLink collective efficiency, host time per sequence in a step, the front end's time per request, and the routed
// experts' kernel efficiency for each expert weight format among the training rows' MoE models.
// Levenberg-Marquardt (Eigen) on log(predicted / measured) mean TTFT and TPOT of the training rows, each evaluated with
// the fast closed-loop replay; a fifth of the rows (by a hash of their id, so the split never depends on the file's
// order) is held out and only scored. One set of parameters per (hardware, runtime): never a factor per row, model or
// layout.
//
// Bounded (ServingFitOptions::bounded): no efficiency above the best kernel-level figure measured on that hardware (the
// datasheet profile's matmul share is the best MAMF measured, REFERENCE.md s4, so a fitted GEMM can be slower than it,
// never faster; attention and HBM streaming at most 0.80 and 0.95, NVLink at most 1), and a log-normal prior around the
// datasheet profile on the four efficiencies (one residual (log x - log x0) / log 1.5 each, beside the 2 x rows
// residuals of the data). So the fit cannot buy a lower TTFT or TPOT error with an efficiency no kernel reaches, or
// one a factor of several below what the kernels measure, which a model or a workload outside the rows would pay
// for. Not the default: held out model by model (`--cross-validate`, docs/ACCURACY.md) it did not predict the models
// it never saw better than the plain least squares (efficiencies capped at 1 only), which the shipped profiles use.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/calibration/kernel_caveats.hpp"
#include "fleetcast/calibration/measured_accuracy.hpp"
#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::validation {

// True for the rows every fit leaves out: FNV-1a 64 of the id, modulo 5, is 0.
bool held_out(const std::string& id);

// The model preset a row maps to ("llama-3.1-70b" for meta-llama/Llama-3.1-70B): the first field of its group.
std::string serving_run_model(const traces::MeasuredServingRun& run);

struct ServingFitOptions {
  int max_train_rows = 48;  // evenly spaced among the training rows: the fit's cost grows with them
  int max_iterations = 12;  // 0: no fit, the starting profile scored as it is
  int threads = 2;
  bool bounded = false;
  // Huber loss on the log errors (quadratic within a factor 1.5, linear beyond) instead of squares throughout.
  bool robust = false;
  // Not empty: every row of this model preset (e.g. "llama-3.1-70b") is left out of the training rows and scored
  // as the held-out set, whatever its id hash: the error on a model the fit never saw.
  std::string leave_out_model;
  // How a silicon CSV's benchmark clients were mapped (traces::apply_client_mapping; none for benchmark files, which
  // state their own): named in the fitted sources, since a fit is only right under the mapping it was made with.
  std::optional<traces::CsvClientMapping> client_mapping = traces::CsvClientMapping::drawn_lengths;
  // Where the pair has a fit in use, descend from it alone, not also from the datasheet profile: a refit after a
  // change that leaves the fit's other parameters near right (a parameter added), at half the cost.
  bool refine = false;
  // Descend from the datasheet profile alone, as if the pair had no fit in use (the fit's result then does not depend
  // on which fit ships); not with refine.
  bool from_datasheet = false;
  // Fit the routed experts' kernel efficiency per weight format (false: none, the experts at the GEMM rate, as the
  // shipped profiles were fitted; a format's figure fitted to one model's rows does not carry to another model).
  bool fit_experts = true;
  // Where the training rows hold both dense and MoE models, fit the experts' weight streaming against the dense
  // weights' (Profile::expert_memory_efficiency; false: 1, one HBM efficiency for both, as the shipped profiles are
  // fitted: on the development set one model's slow decode set it for every MoE model, docs/ACCURACY.md).
  bool fit_expert_memory = false;
  // Fit the host time to launch one kernel of a prompt iteration run eagerly (Profile::eager_launch_s; false: the
  // starting profile's, 0 in the datasheet ones), for engines that graph decode-only batches alone.
  bool fit_eager_launch = false;
  // Slow the prompts by the engine's measured marginal prompt over the datasheet profile's (the pair's
  // Profile::marginal_prompt_ratio, `calibrate prompt-ratio`), kept fixed while the rest is fitted: the prefill then
  // need not be bought with efficiencies no kernel reaches or a front end the rows do not hold. The fit keeps the
  // ratio, so that it carries to a GPU without a fit (false: no slowdown; four shipped fits were made with it,
  // docs/ACCURACY.md, "A prompt's slowdown").
  bool prompt_slowdown = false;
  // The ratio by kind of model to slow the prompts by instead of the pair's profile's (the pair's fit measured it on
  // every model's runs; a fold of --cross-validate measures it without the left-out model's); a kind it lacks is not
  // slowed. nullopt: the pair's.
  std::optional<std::map<std::string, double>> measured_prompt_ratio;
  // "dense" or "moe": fit on the rows of that kind of model alone and write a profile for that kind
  // (Profile::model_kind), which forecasts of such models take over the pair's fit; "" (default): every row.
  std::string model_kind;
  // The most host time per step the fit may give (the default, 100 ms, is no limit in practice). Left free, the step
  // overhead takes up whatever makes one model's steps slower than the model says, and every model on the GPU then
  // pays it (docs/ACCURACY.md, "Fits on models they never saw, five recipes").
  double max_step_overhead_s = 0.1;
  // The TTFT residuals' weight against TPOT's (1: alike). Below 1 the fit leans on TPOT, whose decode step the model
  // holds, against TTFT, which also holds how the closed-loop clients group (docs/ACCURACY.md, "What a measured TTFT
  // holds").
  double ttft_weight = 1.0;
};

// The fast replay's error on a set of rows: median and p90 absolute percentage error, median predicted / measured.
struct ServingFitScore {
  int rows = 0;
  calibration::ErrorFigures ttft, tpot;
};

struct ServingFit {
  calibration::Profile profile;  // kind "fitted", runtime set, sources naming the file, its hash and the rows
  ServingFitScore before_train, after_train;  // replay errors on the rows fitted
  // And on the held-out rows, each as its model would use the profile (calibration::scope_to_model): with
  // leave_out_model, a model the fit never saw takes what a forecast of it would.
  ServingFitScore before_held_out, after_held_out;
  int iterations = 0;
  // Where the descent that was kept started: "datasheet", or "profile in use" when the pair already had a fit and
  // the descent from it ended at the lower training cost.
  std::string started_from = "datasheet";
  std::vector<std::string> skipped;  // rows of the pair not usable by the replay, with the reason
  // The training rows by model preset; their names are the profile's fitted_models.
  std::map<std::string, int> train_rows_by_model;
  // The fitted figures outside what the kernels reach (calibration/kernel_caveats.hpp), also noted in the sources.
  std::vector<calibration::KernelCaveat> caveats;
};

// Fits the profile of `hardware` under `runtime` from the agg rows of `results` that map to that pair, starting
// from the datasheet profile and, where the pair has a fit in use (calibration::profile_for), from that one too,
// keeping the end of lower training cost (a descent only goes down from where it starts, and from the datasheet
// it can stop in a poor minimum); the "before" scores are those of the profile in use.
// Throws InputError when fewer than 6 training rows remain.
ServingFit fit_serving_profile(const traces::MeasuredServingResults& results, const std::string& hardware,
                               const std::string& runtime, const ServingFitOptions& options = {});

}  // namespace fleetcast::validation
