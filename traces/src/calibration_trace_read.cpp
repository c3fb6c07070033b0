// JSON Lines -> calibration trace, strictly: a trace that calibrates the planner must be whole and exactly
// what the engine wrote, so every problem is an InputError naming "<file>:<line>", the field and the value.

#include <fstream>
#include <set>
#include <sstream>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::traces {
namespace {

using nlohmann::ordered_json;

std::string shorten(const ordered_json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// Reads the fields of one record; `finish()` rejects keys no one asked for.
class RecordReader {
public:
  RecordReader(const ordered_json& j, std::string where, std::string kind)
      : j_(j), where_(std::move(where)), kind_(std::move(kind)) {}

  bool has(const char* key) {
    asked_.insert(key);
    return j_.contains(key);
  }
  const ordered_json& at(const char* key) {
    asked_.insert(key);
    if (!j_.contains(key)) throw InputError(where_, key, "", "missing in the " + kind_ + " record");
    return j_.at(key);
  }
  std::string text(const char* key) {
    const auto& v = at(key);
    if (!v.is_string()) throw InputError(where_, key, shorten(v), "expected a string");
    return v.get<std::string>();
  }
  int integer(const char* key, int min_value) {
    const auto& v = at(key);
    if (!v.is_number_integer()) throw InputError(where_, key, shorten(v), "expected an integer");
    const auto x = v.get<std::int64_t>();
    if (x < min_value || x > 1'000'000'000)
      throw InputError(where_, key, shorten(v), "must be between " + std::to_string(min_value) + " and 1e9");
    return static_cast<int>(x);
  }
  double number(const char* key) {
    const auto& v = at(key);
    if (!v.is_number()) throw InputError(where_, key, shorten(v), "expected a number");
    const double x = v.get<double>();
    if (!(x >= 0.0)) throw InputError(where_, key, shorten(v), "must be >= 0");
    return x;
  }
  bool boolean(const char* key) {
    const auto& v = at(key);
    if (!v.is_boolean()) throw InputError(where_, key, shorten(v), "expected true or false");
    return v.get<bool>();
  }
  void finish() const {
    for (const auto& [key, value] : j_.items()) {
      if (asked_.count(key) == 0) {
        std::string valid;
        for (const auto& k : asked_) valid += (valid.empty() ? "" : ", ") + k;
        throw InputError(where_, key, "", "unknown key in the " + kind_ + " record; valid: " + valid);
      }
    }
  }

private:
  const ordered_json& j_;
  std::string where_, kind_;
  std::set<std::string> asked_;
};

CalibrationHeader read_header(const ordered_json& j, const std::string& where) {
  RecordReader r(j, where, "header");
  if (r.text("record") != "header")
    throw InputError(where, "record", shorten(j.at("record")), "the first line must be the header record");
  CalibrationHeader h;
  h.schema = r.text("schema");
  if (h.schema != kCalibrationTraceSchema)
    throw InputError(where, "schema", h.schema, std::string("unknown schema version; this reader knows ") +
                                                    kCalibrationTraceSchema);
  h.backend = r.text("backend");
  if (h.backend != "cuda" && h.backend != "cpu") throw InputError(where, "backend", h.backend, "valid: cuda, cpu");
  h.device = r.text("device");
  h.sm_count = r.integer("sm_count", 0);
  h.sm_clock_mhz = r.number("sm_clock_mhz");
  h.memory_clock_mhz = r.number("memory_clock_mhz");
  h.driver_version = r.text("driver_version");
  h.cuda_version = r.text("cuda_version");
  h.cublas_version = r.text("cublas_version");
  h.nccl_version = r.text("nccl_version");
  h.cpu_model = r.text("cpu_model");
  h.cpu_cores = r.integer("cpu_cores", 0);
  h.git_commit = r.text("git_commit");
  h.host = r.text("host");
  h.date = r.text("date");
  h.plan = r.text("plan");
  r.finish();
  return h;
}

// One list per MoE layer of the rows each local expert received: integers >= 0, every layer the same experts.
std::vector<std::vector<std::int64_t>> expert_rows(const ordered_json& v, const std::string& where) {
  const auto bad = [&](const std::string& why) { throw InputError(where, "expert_rows", shorten(v), why); };
  if (!v.is_array() || v.empty()) bad("expected a non-empty array with one array per MoE layer");
  std::vector<std::vector<std::int64_t>> rows;
  for (const auto& layer : v) {
    if (!layer.is_array() || layer.empty()) bad("expected each MoE layer as a non-empty array of row counts");
    if (!rows.empty() && layer.size() != rows.front().size()) bad("every MoE layer must list the same experts");
    auto& counts = rows.emplace_back();
    for (const auto& c : layer) {
      if (!c.is_number_integer() || c.get<std::int64_t>() < 0) bad("row counts must be integers >= 0");
      counts.push_back(c.get<std::int64_t>());
    }
  }
  return rows;
}

CalibrationMeasurement read_measurement(const ordered_json& j, const std::string& where) {
  RecordReader r(j, where, "measurement");
  if (r.text("record") != "measurement")
    throw InputError(where, "record", shorten(j.at("record")), "expected \"measurement\" after the header line");
  CalibrationMeasurement m;
  m.op = r.text("op");
  if (m.op.empty()) throw InputError(where, "op", "\"\"", "must not be empty");
  m.dtype = r.text("dtype");
  if (m.dtype.empty()) throw InputError(where, "dtype", "\"\"", "must not be empty");
  m.shape = r.at("shape");
  if (!m.shape.is_object()) throw InputError(where, "shape", shorten(m.shape), "expected an object");
  for (const auto& [key, value] : m.shape.items()) {
    if (!value.is_number_integer() && !value.is_string())
      throw InputError(where, "shape." + key, shorten(value), "expected an integer or a string");
  }
  m.gpus = r.integer("gpus", 1);
  m.repetitions = r.integer("repetitions", 1);
  m.median_s = r.number("median_s");
  m.p10_s = r.number("p10_s");
  m.p90_s = r.number("p90_s");
  if (!(m.p10_s <= m.median_s && m.median_s <= m.p90_s))
    throw InputError(where, "median_s", shorten(j.at("median_s")),
                     "percentiles out of order: need p10_s <= median_s <= p90_s");
  m.flops = r.number("flops");
  m.bytes = r.number("bytes");
  m.achieved_tflops = r.number("achieved_tflops");
  m.achieved_gb_per_s = r.number("achieved_gb_per_s");
  m.checked = r.boolean("checked");
  m.max_rel_error = r.number("max_rel_error");
  if (r.has("expert_rows")) m.expert_rows = expert_rows(j.at("expert_rows"), where);
  r.finish();
  return m;
}

}  // namespace

CalibrationTrace parse_calibration_trace(const std::string& text, const std::string& file) {
  if (text.empty()) throw InputError(file, "", "", "empty file: a calibration trace starts with a header line");
  CalibrationTrace t;
  std::size_t start = 0;
  int line_no = 0;
  while (start < text.size()) {
    ++line_no;
    const std::string where = file + ":" + std::to_string(line_no);
    const std::size_t end = text.find('\n', start);
    // The writer ends every line with a newline, so a last line without one was cut off mid-write.
    if (end == std::string::npos)
      throw InputError(where, "", "", "the last line has no newline at its end: the file is truncated");
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) throw InputError(where, "", "", "empty line: every line is one JSON record");
    ordered_json j;
    try {
      j = ordered_json::parse(line);
    } catch (const ordered_json::parse_error&) {
      throw InputError(where, "", shorten(ordered_json(line)), "not a valid JSON object (a truncated line?)");
    }
    if (!j.is_object()) throw InputError(where, "", shorten(j), "expected a JSON object");
    if (line_no == 1) {
      t.header = read_header(j, where);
    } else {
      t.measurements.push_back(read_measurement(j, where));
    }
  }
  return t;
}

CalibrationTrace read_calibration_trace(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path.string(), "", "", "is a directory, not a trace");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "", "cannot open the calibration trace");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_calibration_trace(ss.str(), path.string());
}

}  // namespace fleetcast::traces
