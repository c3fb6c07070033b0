#pragma once
// A profile says how fast one hardware really runs each class of work: the efficiencies and fixed costs
// the step-time model multiplies datasheet peaks by. Every number carries its source.
// This increment ships datasheet-derived profiles (REFERENCE.md sections 3 and 4); fitted and measured
// profiles (the calibration issue) use the same struct.

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "fleetcast/specs/hardware.hpp"

namespace fleetcast::calibration {

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

  std::map<std::string, std::string> sources;  // field -> where the number came from

  double matmul_efficiency_for(const std::string& compute_class) const;
};

// Efficiencies from kernel-level measurements by others (REFERENCE.md section 4), with the closest
// measured GPU standing in where the exact one has no figure (each such case says so in `sources`).
Profile datasheet_profile(const specs::HardwareSpec& hardware, const std::string& runtime);

nlohmann::json to_json(const Profile& p);

}  // namespace fleetcast::calibration
