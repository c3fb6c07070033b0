// Traces -> profile: groups the measurements by (op, dtype, string shape fields), fits a predictor for each,
// assesses it, and sets the summary efficiencies the step-time model reads from the fitted trends.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/calibration/sha256.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"

namespace fleetcast::calibration {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool contains_word(const std::string& text, const std::string& word) {
  for (std::size_t pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
    const bool left = pos == 0 || !std::isalnum(static_cast<unsigned char>(text[pos - 1]));
    const std::size_t end = pos + word.size();
    const bool right = end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
    if (left && right) return true;
  }
  return false;
}

// "AMD EPYC 7B13" -> "cpu-amd-epyc-7b13": a hardware name of its own for a device no preset describes.
std::string device_slug(const traces::CalibrationHeader& h) {
  std::string out = h.backend == "cpu" ? "cpu" : "gpu";
  bool dash = true;
  out += '-';
  for (unsigned char c : h.device) {
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
      dash = false;
    } else if (!dash) {
      out += '-';
      dash = true;
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Group {
  std::string op, dtype, variant;
  std::vector<const traces::CalibrationMeasurement*> records;
};

std::string variant_of(const traces::CalibrationMeasurement& m) {
  std::string v;
  for (const auto& [key, value] : m.shape.items()) {
    if (value.is_string()) v += (v.empty() ? "" : ",") + key + "=" + value.get<std::string>();
  }
  return v;
}

OpPredictor fit_group(const Group& g, const Peaks& peaks) {
  // Dims: the integer shape fields whose value differs between the group's points, in the engine's order.
  std::vector<std::string> dims;
  for (const auto& [key, value] : g.records.front()->shape.items()) {
    if (!value.is_number_integer()) continue;
    std::set<long long> seen;
    for (const auto* r : g.records) {
      if (r->shape.contains(key) && r->shape.at(key).is_number_integer())
        seen.insert(r->shape.at(key).get<long long>());
    }
    if (seen.size() > 1) dims.push_back(key);
  }
  std::vector<PredictorPoint> points;
  for (const auto* r : g.records) {
    PredictorPoint p;
    for (const auto& d : dims) {
      p.dims.push_back(r->shape.contains(d) && r->shape.at(d).is_number_integer() ? r->shape.at(d).get<double>() : 0.0);
    }
    p.time_s = r->median_s;
    p.flops = r->flops;
    p.bytes = r->bytes;
    points.push_back(std::move(p));
  }
  return fit_predictor(g.op, g.dtype, g.variant, dims, points, peaks);
}

std::string compute_class(const std::string& dtype) {
  if (dtype == "fp16") return "bf16";
  if (dtype == "e4m3" || dtype == "e5m2") return "fp8";
  return dtype;
}

// The largest measured x of a regime: where the fitted trend is read for the step-time model's efficiency.
double largest(const OpPredictor& p, bool flops) {
  double x = 0.0;
  for (const auto& pt : p.points) x = std::max(x, flops ? pt.flops : pt.bytes);
  return x;
}

}  // namespace

bool is_collective_op(const std::string& op) {
  return op == "all_reduce" || op == "all_gather" || op == "reduce_scatter" || op == "all_to_all" || op == "send_recv";
}

FitInput fit_input_from_text(const std::string& text, const std::string& file) {
  return {file, sha256_hex(text), traces::parse_calibration_trace(text, file)};
}

FitInput load_fit_input(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path.string(), "", "", "is a directory, not a trace");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "", "cannot open the calibration trace");
  std::ostringstream ss;
  ss << in.rdbuf();
  return fit_input_from_text(ss.str(), path.string());
}

std::optional<specs::HardwareSpec> preset_for_device(const std::string& device) {
  const std::string d = lower(device);
  std::optional<specs::HardwareSpec> best;
  for (const auto& info : specs::list_presets(specs::PresetKind::hardware)) {
    if (contains_word(d, lower(info.name))) best = specs::hardware_preset(info.name);
  }
  return best;
}

Peaks peaks_for(const std::optional<specs::HardwareSpec>& hw, const std::string& dtype,
                const std::vector<traces::CalibrationMeasurement>& all) {
  Peaks p;
  if (hw) {
    const std::string cls = compute_class(dtype);
    // fp32 and other classes without tensor cores: 1/16 of the BF16 rate, as simulator/src/hardware_rates.cpp.
    p.flops_per_s = hw->supports(cls) ? hw->peak_flops(cls) : hw->peak_flops("bf16") / 16.0;
    p.bytes_per_s = hw->hbm_bytes_per_s();
    p.source = "datasheet: " + hw->name + " " + (hw->supports(cls) ? cls : "bf16/16") + " peak and HBM bandwidth";
    return p;
  }
  double gemm_flops = 0.0, any_flops = 0.0, copy_bytes = 0.0, any_bytes = 0.0;
  for (const auto& m : all) {
    if (m.median_s <= 0.0) continue;
    const double f = m.flops / m.median_s, b = m.bytes / m.median_s;
    if (m.op == "gemm" && m.dtype == dtype) gemm_flops = std::max(gemm_flops, f);
    if (m.op == "memcpy") copy_bytes = std::max(copy_bytes, b);
    any_flops = std::max(any_flops, f);
    any_bytes = std::max(any_bytes, b);
  }
  p.flops_per_s = gemm_flops > 0.0 ? gemm_flops : std::max(any_flops, 1.0);
  p.bytes_per_s = copy_bytes > 0.0 ? copy_bytes : std::max(any_bytes, 1.0);
  p.source = std::string("measured: best ") + (gemm_flops > 0.0 ? dtype + " GEMM" : "op") + " FLOP/s and best " +
             (copy_bytes > 0.0 ? "memcpy" : "op") + " bytes/s in the trace (no datasheet for this device)";
  return p;
}

Profile fit_profile(const std::vector<FitInput>& inputs, const FitOptions& options) {
  if (inputs.empty()) throw InputError("", "calibrate fit", "", "needs at least one trace");
  const auto& first = inputs.front().trace.header;
  for (const auto& in : inputs) {
    if (in.trace.header.device != first.device) {
      throw InputError(in.file, "device", in.trace.header.device,
                       "every trace of one fit must come from one device; the first is \"" + first.device + "\"");
    }
  }
  std::optional<specs::HardwareSpec> hw =
      options.hardware.empty() ? preset_for_device(first.device) : std::optional<specs::HardwareSpec>();
  if (!options.hardware.empty()) {
    for (const auto& info : specs::list_presets(specs::PresetKind::hardware)) {
      if (info.name == options.hardware) hw = specs::hardware_preset(info.name);
    }
  }
  // A device of its own (a CPU, an unlisted GPU): the assumed figures of datasheet_profile() as the base.
  specs::HardwareSpec base_hw;
  base_hw.name = options.hardware.empty() ? device_slug(first) : options.hardware;
  Profile p = datasheet_profile(hw ? *hw : base_hw, options.runtime);
  p.hardware = hw ? hw->name : base_hw.name;
  p.kind = "fitted";

  std::string cite;
  std::vector<traces::CalibrationMeasurement> all, collectives;
  for (const auto& in : inputs) {
    p.traces.push_back({in.file, in.sha256, in.trace.header.device, static_cast<int>(in.trace.measurements.size())});
    cite += (cite.empty() ? "" : ", ") + std::string("sha256:") + in.sha256.substr(0, 16);
    for (const auto& m : in.trace.measurements) {
      if (m.median_s <= 0.0 || m.op == kModelStepOp) continue;
      (is_collective_op(m.op) ? collectives : all).push_back(m);
    }
  }
  cite = "trace " + cite;

  std::map<std::string, Group> groups;
  for (const auto& m : all) {
    const std::string v = variant_of(m);
    Group& g = groups[m.op + "|" + m.dtype + "|" + v];
    g.op = m.op;
    g.dtype = m.dtype;
    g.variant = v;
    g.records.push_back(&m);
  }
  for (const auto& [key, g] : groups) {
    p.predictors.push_back(fit_group(g, peaks_for(hw, g.dtype, all)));
    p.quality.push_back(assess(p.predictors.back()));
  }

  // Summary efficiencies for the step-time model: the fitted trend read at the largest measured run.
  std::vector<double> t0s;
  for (const auto& pr : p.predictors) {
    if (pr.roofline.compute.points + pr.roofline.memory.points > 0) t0s.push_back(pr.roofline.t0_s);
    const std::string where = ": " + pr.op + " " + pr.dtype + " trend at its largest run, " + cite;
    if (pr.op == "gemm" && pr.roofline.compute.points > 0) {
      const std::string cls = compute_class(pr.dtype);
      p.matmul_efficiency[cls] = pr.roofline.compute.at(largest(pr, true));
      p.sources["matmul_efficiency." + cls] = "fitted" + where + "; peak " + pr.roofline.peaks.source;
      if (!hw && cls == "fp32") {
        // A CPU runs what the model calls bf16 in fp32: the same efficiency.
        p.matmul_efficiency["bf16"] = p.matmul_efficiency[cls];
        p.sources["matmul_efficiency.bf16"] = "fitted: fp32 GEMM stands in (the device computes in fp32), " + cite;
      }
    }
    if (pr.op == "memcpy" && pr.roofline.memory.points > 0) {
      p.memory_efficiency = pr.roofline.memory.at(largest(pr, false));
      p.sources["memory_efficiency"] = "fitted" + where + "; peak " + pr.roofline.peaks.source;
    }
    if (pr.op.rfind("attention", 0) == 0 && pr.roofline.compute.points > 0) {
      p.attention_compute_efficiency = pr.roofline.compute.at(largest(pr, true));
      p.sources["attention_compute_efficiency"] = "fitted" + where;
    }
  }
  if (!t0s.empty()) {
    std::sort(t0s.begin(), t0s.end());
    p.op_latency_s = t0s[t0s.size() / 2];
    p.sources["op_latency_s"] = "fitted: median roofline t0 over the ops, " + cite;
  }
  if (first.backend == "cpu") {
    p.step_overhead_s = 0.0;
    p.sources["step_overhead_s"] = "none: the CPU engine times the forward pass alone, no serving host";
  }

  p.collectives = fit_collectives(collectives, hw, p, "fitted: " + cite);
  std::vector<double> nvlink_eff, latency;
  for (const auto& c : p.collectives) {
    if (c.points == 0) continue;
    latency.push_back(c.latency_s);
    if (c.transport == "nvlink" && hw && hw->nvlink_gb_per_s > 0.0) {
      nvlink_eff.push_back(std::min(1.0, c.bus_bytes_per_s / hw->nvlink_bytes_per_s_one_way()));
    }
  }
  if (!nvlink_eff.empty()) {
    p.nvlink_efficiency = median(nvlink_eff);
    p.sources["nvlink_efficiency"] = "fitted: median bus bandwidth / one-way NVLink over the collectives, " + cite;
  }
  if (!latency.empty()) {
    p.collective_latency_s = median(latency);
    p.sources["collective_latency_s"] = "fitted: median latency over the collectives, " + cite;
  }
  // After the efficiencies: the factors correct the route those make (a preset's links only; a device of its
  // own has no platform to simulate).
  if (hw) p.network_factors = fit_network_factors(collectives, *hw, p, "fitted: send_recv, " + cite);
  return p;
}

}  // namespace fleetcast::calibration
