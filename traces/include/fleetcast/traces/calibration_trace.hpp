#pragma once
// A calibration trace: what engine/ measured on one device, read by calibration/. JSON Lines: one header
// record, then one record per measurement, each line one JSON object with a "record" key saying which.
// Schema "fleetcast.calibration-trace/1"; the fields are documented beside each member below.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fleetcast::traces {

inline constexpr const char* kCalibrationTraceSchema = "fleetcast.calibration-trace/1";

struct CalibrationHeader {
  std::string schema = kCalibrationTraceSchema;
  std::string backend;            // "cuda" or "cpu"
  std::string device;             // GPU name ("NVIDIA H200"), or the CPU model on the CPU backend
  int sm_count = 0;               // streaming multiprocessors; 0 on the CPU backend
  double sm_clock_mhz = 0.0;      // peak SM clock; 0 on the CPU backend
  double memory_clock_mhz = 0.0;  // peak memory clock; 0 on the CPU backend
  std::string driver_version;     // "" on the CPU backend
  std::string cuda_version;       // runtime, "13.0"; "" on the CPU backend
  std::string cublas_version;     // cuBLASLt, "13.0.0"; "" on the CPU backend
  std::string nccl_version;       // "" on the CPU backend or where the build has no NCCL
  std::string cpu_model;          // the host's CPU, on every backend
  int cpu_cores = 0;              // logical CPUs the process may use; on the CPU backend, the threads it ran on
  std::string git_commit;         // of the engine that measured
  std::string host;
  std::string date;  // UTC, ISO 8601: "2025-06-01T12:34:56Z"
  std::string plan;  // name of the sweep plan that was run
  bool operator==(const CalibrationHeader&) const = default;
};

struct CalibrationMeasurement {
  std::string op;     // "gemm", "rmsnorm", "attention_decode_gqa", ...
  std::string dtype;  // the precision that actually ran: "bf16", "fp8", "fp32"
  // The op's shape: an object whose values are integers or strings, in the order the engine wrote them
  // ({"m": 128, "n": 4096, "k": 4096} for a GEMM).
  nlohmann::ordered_json shape = nlohmann::ordered_json::object();
  int gpus = 1;
  int repetitions = 0;  // timed samples behind the percentiles
  double median_s = 0.0;
  double p10_s = 0.0;
  double p90_s = 0.0;
  double flops = 0.0;              // hand-counted floating-point operations of one run (0: a pure copy)
  double bytes = 0.0;              // hand-counted bytes one run must move to and from memory
  double achieved_tflops = 0.0;    // flops / median_s / 1e12
  double achieved_gb_per_s = 0.0;  // bytes / median_s / 1e9
  bool checked = false;            // the result was compared with the CPU reference before timing
  double max_rel_error = 0.0;      // largest error that comparison found (see engine/src/check.hpp)
  // A model_step of a MoE model: the token-expert rows each of this rank's routed experts received, one list per
  // MoE layer, in the checked run (the routing follows the step's data, so one rank may get half or twice its
  // expected share). Empty for every other record, and then not written.
  std::vector<std::vector<std::int64_t>> expert_rows;
  bool operator==(const CalibrationMeasurement&) const = default;
};

struct CalibrationTrace {
  CalibrationHeader header;
  std::vector<CalibrationMeasurement> measurements;
  bool operator==(const CalibrationTrace&) const = default;
};

// One line each, without the newline. Keys in a fixed order, so the same trace gives the same bytes.
std::string to_jsonl_line(const CalibrationHeader& h);
std::string to_jsonl_line(const CalibrationMeasurement& m);
// The whole file: the header line, then one line per measurement, each ending in "\n".
std::string to_jsonl(const CalibrationTrace& t);

// Writes to a temporary name beside `path`, then renames: a failure leaves no half-written trace.
// Throws InputError when the folder cannot be written.
void write_calibration_trace(const std::filesystem::path& path, const CalibrationTrace& t);

// Strict: every key present with its type, no unknown keys, the schema version known, percentiles in
// order, every line complete. Throws InputError naming "<file>:<line>", the field and the value.
CalibrationTrace parse_calibration_trace(const std::string& text, const std::string& file);
CalibrationTrace read_calibration_trace(const std::filesystem::path& path);

}  // namespace fleetcast::traces
