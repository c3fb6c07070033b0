#pragma once
// Measured runs from benchmark-client files (`--bench FILE...`), with what the files do not say given on the command
// line (GPU, layout, model, runtime) and the engine's launch (--server-args, --server-config): one reader for
// `validate`, `calibrate serving` and `scenario`.

#include <cstddef>
#include <string>
#include <vector>

#include "commands.hpp"
#include "fleetcast/traces/bench_results.hpp"

namespace fleetcast::cli {

struct BenchInput {
  std::vector<std::string> files;
  traces::BenchDeployment given;
  traces::LayoutFieldsGiven layout_flags;
  std::string server_args, server_config;
  std::string perf_metrics;  // TensorRT-LLM's /perf_metrics of the one run --bench names (trt_perf_metrics.hpp)

  // Takes args[i] and its value when it is one of the flags above (--bench, --hardware, --model, --runtime,
  // --precision, --tp, --pp, --dp, --ep, --max-num-seqs, --server-args, --server-config, --acceptance-length,
  // --perf-metrics), advancing i; false for any other argument. InputError for a missing or bad value.
  bool take(const Args& args, std::size_t& i);
  bool has_launch() const { return !server_args.empty() || !server_config.empty(); }
  // The deployment with the launch merged in (traces::take_server_settings): its engine, model and layout where the
  // flags left them open; InputError where they contradict it.
  traces::BenchDeployment deployment() const;
  // Every record of every file under deployment(), read before anything runs so that a bad file fails up front;
  // skipped records are listed on stderr. A directory stands for the AIPerf and genai-perf exports under it.
  traces::MeasuredServingResults read(bool strict) const;
};

}  // namespace fleetcast::cli
