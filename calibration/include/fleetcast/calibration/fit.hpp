#pragma once
// Calibration traces -> a fitted profile (docs/CALIBRATION.md): one predictor per (op, dtype, variant), the
// collectives' latency-bandwidth fits, the quality of every predictor on points it did not see, and the
// summary efficiencies the step-time model reads, each with its source and the traces' SHA-256.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::calibration {

struct FitInput {
  std::string file;
  std::string sha256;
  traces::CalibrationTrace trace;
};

// Reads, hashes and strictly parses one trace (InputError naming "<file>:<line>" and the field).
FitInput load_fit_input(const std::filesystem::path& path);
FitInput fit_input_from_text(const std::string& text, const std::string& file);

struct FitOptions {
  std::string hardware;  // "" : the preset the traces' device names, else a name made from the device
  std::string runtime;   // "" : every runtime
};

// The hardware preset whose name the device string holds as a word ("NVIDIA H200" -> h200), if any.
std::optional<specs::HardwareSpec> preset_for_device(const std::string& device);

// What a roofline for (dtype) is measured against: the preset's datasheet, or with none the trace's own
// best GEMM FLOP/s and best copy bytes/s (marked "measured").
Peaks peaks_for(const std::optional<specs::HardwareSpec>& hw, const std::string& dtype,
                const std::vector<traces::CalibrationMeasurement>& all);

// Op names the engine writes for collectives (shape {bytes, gpus}) and for whole model steps.
bool is_collective_op(const std::string& op);
inline constexpr const char* kModelStepOp = "model_step";

Profile fit_profile(const std::vector<FitInput>& inputs, const FitOptions& options);

// Quality of one predictor (refits with its own peaks).
OpQuality assess(const OpPredictor& p);

// Collectives: fitted per (op, gpus) from the measurements, plus datasheet entries (points 0) for the
// transports the hardware has where nothing was measured.
std::vector<CollectiveModel> fit_collectives(const std::vector<traces::CalibrationMeasurement>& collective_records,
                                             const std::optional<specs::HardwareSpec>& hw, const Profile& base,
                                             const std::string& source);

// The route a transfer over `transport` ("nvlink": two GPU NVLink ports; "nic": NIC, fabric, NIC) takes on the
// platform simulator/src/platform.cpp builds for `hw` with profile `p`: its summed latency and slowest bandwidth.
struct SimulatedRoute {
  double latency_s = 0.0;
  double bytes_per_s = 0.0;
};
SimulatedRoute simulated_route(const std::string& transport, const specs::HardwareSpec& hw, const Profile& p);

// SimGrid network factors per transport from the send_recv records (NVLink up to the scale-up domain, else
// the NIC), against the route simulated_route gives with `p`'s efficiencies; none for a transport with fewer
// than two measured sizes or without the link.
std::vector<NetworkFactors> fit_network_factors(const std::vector<traces::CalibrationMeasurement>& collective_records,
                                                const specs::HardwareSpec& hw, const Profile& p,
                                                const std::string& source);

}  // namespace fleetcast::calibration
