#pragma once
// A profile says how fast one hardware really runs each class of work: the efficiencies and fixed costs
// the step-time model multiplies datasheet peaks by. Every number carries its source.
// Schema v2 (docs/CALIBRATION.md) adds what a fit from calibration traces yields: per-op predictors,
// collective models, fit quality and the traces (with their SHA-256) the fitted numbers came from. A v1
// profile (the datasheet ones shipped in calibration/profiles/) is a v2 profile with those lists empty.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleetcast/calibration/network_factors.hpp"
#include "fleetcast/calibration/predictor.hpp"
#include "fleetcast/specs/hardware.hpp"

namespace fleetcast::calibration {

// One collective at one group size over one transport: time = latency_s + bytes / bytes_per_s, where bytes
// is the buffer one GPU contributes (nccl-tests' "size") and bytes_per_s the algorithm bandwidth.
struct CollectiveModel {
  // SimGrid-style corrections for messages of at least `min_bytes` (up to the next band): the simulated
  // link's latency and bandwidth are multiplied by these so that it reproduces the measured curve.
  struct Band {
    double min_bytes = 0.0;
    double latency_factor = 1.0;
    double bandwidth_factor = 1.0;
    bool operator==(const Band&) const = default;
  };
  std::string op;  // all_reduce, all_gather, reduce_scatter, all_to_all, send_recv
  int gpus = 0;
  std::string transport;  // "nvlink" or "nic"
  double latency_s = 0.0;
  double bytes_per_s = 0.0;      // algorithm bandwidth (buffer bytes / time, latency removed)
  double bus_bytes_per_s = 0.0;  // nccl-tests bus bandwidth: bytes_per_s times the op's bus factor
  std::vector<Band> bands;
  int points = 0;      // measurements behind the fit; 0: datasheet figures
  std::string source;  // "datasheet: ..." or "fitted: trace sha256:..."
  bool operator==(const CollectiveModel&) const = default;
};

// How well an op's predictor predicts points it did not see (absolute percentage errors, 0.1 = 10%).
struct OpQuality {
  std::string op;
  std::string dtype;
  int points = 0;
  double loo_median_ape = 0.0;  // leave one point out, refit, predict it
  double loo_max_ape = 0.0;
  double held_out_median_ape = 0.0;  // leave out the largest value of each shape dim, refit, predict them
  double held_out_max_ape = 0.0;
  int held_out_points = 0;
  std::map<std::string, std::pair<double, double>> range;  // dim -> [min, max] measured
  bool operator==(const OpQuality&) const = default;
};

struct TraceSource {
  std::string file;    // as given to `calibrate fit`
  std::string sha256;  // of the file's bytes
  std::string device;
  int measurements = 0;
  bool operator==(const TraceSource&) const = default;
};

struct Profile {
  std::string hardware;
  std::string runtime;  // "" applies to every runtime
  std::string kind;     // "datasheet", "fitted", "measured"

  std::map<std::string, double> matmul_efficiency;  // by compute class ("bf16", "fp8", "fp4"): share of peak
  double attention_compute_efficiency = 0.0;        // attention FLOPs vs the bf16 peak
  double memory_efficiency = 0.0;                   // streaming HBM reads (weights, KV) vs datasheet bandwidth
  double nvlink_efficiency = 0.0;                   // collective bus bandwidth vs one-way NVLink bandwidth
  double nic_efficiency = 0.0;                      // achieved vs NIC line rate
  double op_latency_s = 0.0;                        // fixed cost of one operator (kernel launch and tail)
  double collective_latency_s = 0.0;                // fixed cost of one collective call
  double step_overhead_s = 0.0;                     // host-side scheduling and input preparation per step
  // Host time per sequence in a step (scheduling, input preparation, sampling, output processing): what makes
  // a large batch's step slower than its GPU work. 0 unless fitted to measured runs.
  double sequence_overhead_s = 0.0;
  // Front end between a client sending a request and the engine having it (HTTP, tokenization, queueing into
  // the engine): part of the TTFT a benchmark client measures. 0 unless fitted to measured runs.
  double request_overhead_s = 0.0;
  // Host time to launch one kernel where a step runs eagerly: an engine that keeps CUDA graphs for decode-only
  // batches (TensorRT-LLM's PyTorch backend, SGLang) launches a prompt iteration's kernels one by one from Python, and
  // a short prompt's iteration lasts as long as that takes (the step model's launch_wait). 0 unless fitted or
  // measured (docs/ACCURACY.md, "The host, not the GPU, sets a short prompt's iteration").
  double eager_launch_s = 0.0;
  // The routed experts' grouped GEMM kernels' compute rate against a dense GEMM's: fused MoE kernels (vLLM's
  // triton fused_moe and matmul_ogs, SGLang's, TensorRT-LLM's CUTLASS grouped GEMMs) gather and scatter rows per
  // expert, dequantise block-scaled weights in the tile and run few rows per expert, and no kernel-level figure for
  // them is in REFERENCE.md. The weights they stream are read at memory_efficiency x expert_memory_efficiency. 1 (a
  // dense GEMM's rate) unless fitted to measured runs. By the experts' weight format ("fp8", "nvfp4", "fp4", "bf16",
  // ...), since each format takes its own kernel path (on B200 vLLM, MXFP4 experts run FlashInfer's TensorRT-LLM
  // MoE kernels, NVFP4 ones CUTLASS grouped GEMMs, FP8 block-scaled ones triton's fused_moe); "*" stands for every
  // format not named. A format not named, with no "*", runs at 1.
  std::map<std::string, double> expert_kernel_efficiency;
  // The routed experts' kernels' weight streaming against memory_efficiency's (a factor, 1 = as fast as a dense
  // GEMM's weights). In a decode step a grouped MoE kernel reads many small expert matrices, a few rows each, in
  // tiles sized for larger batches, and on some engines reaches well under the bandwidth a dense GEMM of the same
  // bytes does; one figure for both would make a fit trade dense models' decode against MoE models'. 1 unless
  // fitted to measured runs of both kinds of model.
  double expert_memory_efficiency = 1.0;
  // How many times the step model's GPU time a prompt's tokens take, by kind of model ("dense", "moe"; a kind not
  // named: 1). Every engine measured prefills slower than the kernel-level figures say, MoE models more so, and the
  // extra time scales with the whole prompt, collectives included, not with the experts' share of it (docs/ACCURACY.md,
  // "How much slower the engines prefill than the kernel-level figures say"). Empty in a datasheet profile and in a fit
  // made without --prompt-slowdown (its own figures hold what its runs measured); a fit made with it keeps its pair's
  // measured marginal_prompt_ratio, and a GPU without a fit of the runtime takes the median of the fits' ratios.
  std::map<std::string, double> prompt_slowdown;
  // Measured on this profile's GPU and runtime, by kind of model: the engine's marginal prompt (TTFT's growth with the
  // prompt at a fixed layout and client count) over the datasheet profile's, under the clients as they ran
  // (`calibrate prompt-ratio`). Not applied to this profile's forecasts; the median over a runtime's fits becomes the
  // prompt_slowdown of a GPU without one.
  std::map<std::string, double> marginal_prompt_ratio;
  // The model presets whose measured serving runs a serving fit was made on (`calibrate serving`'s training rows),
  // sorted; empty where not recorded (datasheet profiles, fits from calibration traces). A fit made on MoE models
  // alone does not give a dense model its GEMM and attention rates (model_scope.hpp).
  std::vector<std::string> fitted_models;
  // "" (every model), or "dense" or "moe": a serving fit made on the runs of that kind of model alone, which
  // profile_for picks for models of that kind only and never as the (hardware, runtime)'s profile (profile_store.hpp).
  // One HBM efficiency and one set of host costs cannot serve both kinds' decode on some engines (docs/ACCURACY.md,
  // "Dense models' own fits").
  std::string model_kind;

  std::map<std::string, std::string> sources;  // field -> where the number came from

  // Schema v2, empty in a datasheet profile.
  std::vector<OpPredictor> predictors;
  std::vector<CollectiveModel> collectives;
  std::vector<OpQuality> quality;
  std::vector<TraceSource> traces;
  // Schema v3: SimGrid network factors per transport, fitted to measured send/recv; empty in a datasheet
  // profile (the simulated links then run at the datasheet figures x the efficiencies above, exactly).
  std::vector<NetworkFactors> network_factors;

  double matmul_efficiency_for(const std::string& compute_class) const;
  // The entry for `experts_format` (a precision name), else "*", else 1.
  double expert_kernel_efficiency_for(const std::string& experts_format) const;
  // prompt_slowdown's entry for a kind of model ("dense" or "moe"), else 1.
  double prompt_slowdown_for(const std::string& model_kind) const;
  const OpPredictor* predictor(const std::string& op, const std::string& dtype) const;
};

// Efficiencies from kernel-level measurements by others (REFERENCE.md section 4), with the closest
// measured GPU standing in where the exact one has no figure (each such case says so in `sources`).
Profile datasheet_profile(const specs::HardwareSpec& hardware, const std::string& runtime);

// The v1 keys always; the v2 lists only when not empty (so a datasheet profile writes what it always did).
nlohmann::json to_json(const Profile& p);

}  // namespace fleetcast::calibration
