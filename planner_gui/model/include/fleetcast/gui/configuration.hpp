#pragma once
// One configuration the app compares: its key figures, whichever file they came from (a simulation report, a
// point of a sweep, a measured serving run). A value type; figures a source does not give are NaN.

#include <QString>
#include <QVector>

#include "fleetcast/traces/benchmark_record.hpp"

namespace fleetcast::gui {

enum class Origin { report, sweep_point, measured };

// A latency distribution as a report summarises it: (cumulative share, ms) pairs, share increasing from 0 (min)
// to 1 (max) through the percentiles the report gives (p50, p90, p95, p99). Empty where the source has none.
struct LatencyQuantiles {
  QVector<double> share;
  QVector<double> ms;
  bool empty() const { return share.isEmpty(); }
};

// The report's (or sweep point's) `cost` object; NaN where absent.
struct CostFigures {
  double usd_per_hour = NAN;
  double idle_share = NAN;  // share of the paid GPU time with no work, charged to the work done
  double usd_per_m_input = NAN;
  double usd_per_m_output = NAN;
  double usd_per_m_tokens_blended = NAN;
};

// The report's `timeline` (written by `fleetcast simulate --timeline`): one entry per sampler sample.
struct Timeline {
  QVector<double> t_s;
  QVector<double> waiting;        // requests queued in replicas
  QVector<double> running;        // requests in running batches
  QVector<double> kv_used_share;  // KV bytes used / capacity over all replicas
  bool empty() const { return t_s.isEmpty(); }
};

struct Configuration {
  QString label;        // the row's name in the table and the point's name in charts
  QString group;        // the chart series it belongs to: a report's file, a sweep's tag, "measured"
  QString source_file;  // the file it was loaded from
  Origin origin = Origin::report;
  QString details;  // several lines for tooltips: scenario name, layout, parameters
  QString error;    // a failed sweep point's message (its figures are NaN)
  // The figures of the profile behind a simulated configuration that lie outside the kernel-level ones
  // (calibration/kernel_caveats.hpp), one short line; empty for none, and for measured runs.
  QString profile_caveats;
  // The error the profile showed on held-out measured runs (calibration/measured_accuracy.hpp), one line; empty where
  // none is on record or the source does not say.
  QString profile_measured_error;
  // For a model outside the runs the profile was fitted to: how wrong its recipe was on models it was refitted
  // without (calibration/unseen_model_accuracy.hpp), one line; empty where it does not apply or the source does not
  // say.
  QString profile_unseen_model_error;
  // On a GPU without a fit: how wrong that pick was on the GPUs with measured runs, each given it instead of its own
  // fit (calibration/unfitted_gpu_accuracy.hpp), one line; empty where it does not apply or the source does not say.
  QString profile_unfitted_gpu_error;
  traces::BenchmarkRecord record;  // the benchmark record (measured: the fields the measurement gives)
  CostFigures cost;
  LatencyQuantiles ttft, tpot, e2e;  // reports only
  Timeline timeline;                 // reports written with --timeline only
};

}  // namespace fleetcast::gui
