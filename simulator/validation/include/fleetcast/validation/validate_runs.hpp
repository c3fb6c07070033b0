#pragma once
// Predicting measured serving runs: every row mapped to a scenario and simulated in a worker process of its
// own, predicted against measured mean TTFT and TPOT, and the absolute percentage errors summarised per group
// (model, system, backend, mode). Rows that cannot be mapped or simulated are listed with the reason and
// count against coverage; none is guessed.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::validation {

// A percentile the benchmark file reports beside a mean, against the simulation's same statistic (both computed as
// `vllm bench serve` computes them: np.percentile, linear, over the measured requests).
struct PercentilePrediction {
  std::string metric;  // "ttft", "tpot", "e2e"
  int percentile = 0;
  double measured_ms = 0.0;
  double predicted_ms = 0.0;
  double ape = 0.0;
};

struct RowPrediction {
  traces::MeasuredServingRun run;
  std::string group;
  bool predicted = false;  // mapped and simulated
  std::string reason;      // why not (unmapped, the model does not fit, the simulation failed)
  std::string notes;       // the mapping's assumptions
  double predicted_ttft_ms = 0.0;
  double predicted_tpot_ms = 0.0;
  double ttft_ape = 0.0;  // |predicted - measured| / measured
  double tpot_ape = 0.0;
  std::vector<PercentilePrediction> percentiles;  // for each one the file reports (benchmark files only)
  // The prompt FLOP/s the measured rate needs over the GPUs' best GEMM rate (prompt_compute.hpp): above 1 the run
  // cannot have prefilled every prompt in full, and a note says so. Absent where it does not apply.
  std::optional<double> prompt_compute_share;
  // A closed loop's clients past their first token at any moment (decoding_clients), by the measured means and by
  // the predicted ones; 0 where it does not apply. Measured under half the predicted, a note says the run held
  // requests back in a way it does not state.
  double measured_decoding_clients = 0.0;
  double predicted_decoding_clients = 0.0;
  bool held_back() const { return measured_decoding_clients < kHeldBackShare * predicted_decoding_clients; }
  // A run whose clients decode at under this share of the simulation's count held requests back: a cap the row does
  // not state, far from what differing prefill or decode times alone move.
  static constexpr double kHeldBackShare = 0.5;
};

// Little's law on a closed loop's means: of C clients, each cycling through a request's TTFT and then its
// (output tokens - 1) x TPOT of decoding, C x D / (TTFT + D) are decoding at any moment (D the decoding time; a
// client's pause between requests, none in a benchmark, aside). 0 for no clients, one output token or no time.
double decoding_clients(int clients, double output_tokens, double ttft_ms, double tpot_ms);

struct ErrorSummary {
  int count = 0;  // rows predicted
  double median = 0.0;
  double p90 = 0.0;
};

struct GroupSummary {
  std::string group;
  int rows = 0;       // rows of the group in the file (bad rows excluded)
  int predicted = 0;  // rows predicted
  ErrorSummary ttft;
  ErrorSummary tpot;
};

// One percentile of one metric over every row that reports it.
struct PercentileSummary {
  std::string metric;
  int percentile = 0;
  ErrorSummary error;
};

struct ValidationResult {
  std::string file;
  long rows_read = 0;                // data rows in the file
  long rows_skipped = 0;             // bad rows the reader skipped
  std::vector<RowPrediction> rows;   // in file order
  std::vector<GroupSummary> groups;  // sorted by group
  GroupSummary overall;
  std::vector<PercentileSummary> percentiles;  // by metric, then percentile; empty when no file reports one
  double coverage() const;                     // rows predicted / rows read
};

struct ValidateOptions {
  int jobs = 1;  // worker processes at once
  // Called in the parent after each row (done, total): progress lines.
  std::function<void(std::size_t, std::size_t)> progress;
  // Keeps only the rows for which it returns true (a subset for a quick run); empty: all.
  std::function<bool(const traces::MeasuredServingRun&)> select;
  // Called in the parent with each mapped row and the scenario it maps to, before anything runs (e.g. to
  // write the scenarios out for `fleetcast simulate` or `fleetcast step`); empty: nothing.
  std::function<void(const traces::MeasuredServingRun&, const nlohmann::json&)> mapped;
};

ValidationResult validate_runs(const traces::MeasuredServingResults& results, const ValidateOptions& options);

// The median and 90th percentile (linear interpolation between order statistics) of `values`.
ErrorSummary summarise_errors(std::vector<double> values);

nlohmann::json to_json(const ValidationResult& r);

}  // namespace fleetcast::validation
