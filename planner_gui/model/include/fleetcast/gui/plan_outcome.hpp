#pragma once
// A plan's answer as the app shows it (`fleetcast plan PLAN.json -o OUT.json`, schema fleetcast.plan/1): the ranked
// feasible configurations with their figures, and the rejected ones counted by reason with one example each.
// A value type; figures the file does not give are NaN.

#include <QString>
#include <QVector>
#include <cmath>

namespace fleetcast::gui {

// One feasible configuration, cheapest first. Latencies: the worst request class's p95 (the figure an SLO miss
// shows first), as `fleetcast plan`'s text table gives them.
struct PlanRow {
  int rank = 0;         // 1 = the cheapest per M tokens
  int config = 0;       // the candidate's index in the plan's search space
  QString description;  // "h100 vllm x2 tp2 dp1 ep1 agg seqs128 tok8192 mtp-off" (the CLI's words)
  QString hardware;     // the GPU preset
  QString runtime;      // the serving engine
  int gpus = 0;
  double usd_per_m_tokens = NAN;  // blended over the request mix
  double usd_per_hour = NAN;
  double ttft_p95_ms = NAN;
  double tpot_p95_ms = NAN;
  double output_tokens_per_s_per_gpu = NAN;
  double tokens_per_s_per_user = NAN;
  bool pareto = false;      // on the plan's frontier: no other is both cheaper per M tokens and faster per user
  QString profile_caveats;  // its (hardware, runtime) profile's figures outside the kernel-level ones ("" for none)
  // 1 - p95 / objective at the tightest class (0.2: 20% below; NaN: no objective, or an output written before), and
  // whether that is below what its profile's error on record needs (the plan's `within_error`).
  double ttft_headroom = NAN, tpot_headroom = NAN;
  bool ttft_within_error = false, tpot_within_error = false;
};

// The profile behind one (hardware, runtime) pair's figures (the plan output's `profiles`).
struct PlanProfile {
  QString hardware, runtime, kind;  // kind: datasheet, fitted or measured
  QString caveats;                  // its figures outside the kernel-level ones, one short line ("" for none)
  QString measured_error;           // the error it showed on held-out measured runs, one line ("" for none on record)
  QString unseen_model_error;       // for a model outside its fit's runs: the error on models left out ("" for none)
  QString unfitted_gpu_error;       // for a GPU without a fit: its pick's error on fitted GPUs' runs ("" for none)
};

// The rejected configurations of one reason and stage ("pruned" by the analytic bounds before simulating, or
// "simulated" and then found wanting); `example` is the first such configuration with its deciding figure.
struct RejectionGroup {
  QString reason;  // gpu_limit, budget, memory, slo, capacity, failed
  QString stage;   // pruned or simulated
  int count = 0;
  QString example_description;
  QString example_detail;  // the CLI's sentence, with units
  QString example_metric;  // the deciding figure's name ("" where none)
  double example_value = NAN;
  double example_limit = NAN;
};

struct PlanOutcome {
  QString name;         // the plan's name
  QString source_file;  // the plan output it was loaded from
  int candidates = 0, pruned = 0, simulated = 0, feasible = 0, invalid_combinations = 0;
  QVector<PlanRow> rows;               // every feasible configuration, by rank
  int best_beyond_error_config = -1;   // the cheapest whose headroom clears its profile's error on record (-1: none)
  QVector<RejectionGroup> rejections;  // pruned before simulated, reasons in the file's order of first sight
  QVector<PlanProfile> profiles;       // per hardware, in the plan's order (none in outputs written before them)
  // The engines not searched on a GPU they do not run on: "trtllm on mi355x (TensorRT-LLM (CUDA) runs on NVIDIA GPUs
  // only; ...)", in the plan's order (none in outputs written before plans searched engines).
  QStringList engines_not_searched;
};

// Reads a plan output; LoadError naming the file and the field on anything else.
PlanOutcome load_plan_output(const QString& path);

}  // namespace fleetcast::gui
