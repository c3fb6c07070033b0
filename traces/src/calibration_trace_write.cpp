// Calibration trace -> JSON Lines. Key order is fixed here and nowhere else; the reader accepts exactly
// these keys, so the two are kept side by side with the field list in calibration_trace.hpp.

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::traces {
namespace {

using nlohmann::ordered_json;

// A NaN or infinity would be written as null and then rejected by the reader: refuse it here, where the
// bug is, rather than write a trace that cannot be read back.
double finite(double x, const char* field) {
  if (!std::isfinite(x))
    throw std::runtime_error(std::string("calibration trace: field '") + field + "' is not finite");
  return x;
}

}  // namespace

std::string to_jsonl_line(const CalibrationHeader& h) {
  ordered_json j;
  j["record"] = "header";
  j["schema"] = h.schema;
  j["backend"] = h.backend;
  j["device"] = h.device;
  j["sm_count"] = h.sm_count;
  j["sm_clock_mhz"] = finite(h.sm_clock_mhz, "sm_clock_mhz");
  j["memory_clock_mhz"] = finite(h.memory_clock_mhz, "memory_clock_mhz");
  j["driver_version"] = h.driver_version;
  j["cuda_version"] = h.cuda_version;
  j["cublas_version"] = h.cublas_version;
  j["nccl_version"] = h.nccl_version;
  j["cpu_model"] = h.cpu_model;
  j["cpu_cores"] = h.cpu_cores;
  j["git_commit"] = h.git_commit;
  j["host"] = h.host;
  j["date"] = h.date;
  j["plan"] = h.plan;
  return j.dump();
}

std::string to_jsonl_line(const CalibrationMeasurement& m) {
  if (!m.shape.is_object()) throw std::runtime_error("calibration trace: shape of '" + m.op + "' is not an object");
  ordered_json j;
  j["record"] = "measurement";
  j["op"] = m.op;
  j["dtype"] = m.dtype;
  j["shape"] = m.shape;
  j["gpus"] = m.gpus;
  j["repetitions"] = m.repetitions;
  j["median_s"] = finite(m.median_s, "median_s");
  j["p10_s"] = finite(m.p10_s, "p10_s");
  j["p90_s"] = finite(m.p90_s, "p90_s");
  j["flops"] = finite(m.flops, "flops");
  j["bytes"] = finite(m.bytes, "bytes");
  j["achieved_tflops"] = finite(m.achieved_tflops, "achieved_tflops");
  j["achieved_gb_per_s"] = finite(m.achieved_gb_per_s, "achieved_gb_per_s");
  j["checked"] = m.checked;
  j["max_rel_error"] = finite(m.max_rel_error, "max_rel_error");
  if (!m.expert_rows.empty()) j["expert_rows"] = m.expert_rows;
  return j.dump();
}

std::string to_jsonl(const CalibrationTrace& t) {
  std::string out = to_jsonl_line(t.header) + "\n";
  for (const auto& m : t.measurements) out += to_jsonl_line(m) + "\n";
  return out;
}

void write_calibration_trace(const std::filesystem::path& path, const CalibrationTrace& t) {
  const std::string text = to_jsonl(t);  // before opening anything: a bad record leaves no temporary file
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) throw InputError(path.string(), "", "", "cannot write the trace here (does the folder exist?)");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 &&
                  ::fsync(::fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("writing " + path.string() + " failed");
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace fleetcast::traces
