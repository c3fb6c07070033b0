// Kernel timings -> a calibration trace: each mapped kernel name becomes one measurement of its op class,
// shape {"kernel": name}, with no FLOP or byte counts (a profile does not know them), so a fit keeps the
// measured time per kernel (docs/CALIBRATION.md).
#include "fleetcast/calibration/kernel_import.hpp"

#include <nlohmann/json.hpp>
#include <regex>

#include "fleetcast/specs/error.hpp"

namespace fleetcast::calibration {
namespace {

// The precision a kernel's name says it runs, where it says one.
std::string dtype_of(const std::string& name) {
  static const std::pair<std::regex, const char*> kTable[] = {
      {std::regex("fp8|e4m3|e5m2", std::regex::icase), "fp8"},
      {std::regex("fp4|nvfp4|e2m1", std::regex::icase), "fp4"},
      {std::regex("bf16|bfloat16", std::regex::icase), "bf16"},
      {std::regex("fp16|f16|half", std::regex::icase), "fp16"},
      {std::regex("fp32|f32|float", std::regex::icase), "fp32"},
  };
  for (const auto& [re, dtype] : kTable) {
    if (std::regex_search(name, re)) return dtype;
  }
  return "unknown";
}

}  // namespace

std::vector<KernelPattern> read_kernel_patterns(const std::string& text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file, "", "", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || j.size() != 1 || !j.contains("patterns") || !j.at("patterns").is_array()) {
    throw InputError(file, "patterns", "", "a map is {\"patterns\": [{\"class\": ..., \"regex\": ...}, ...]}");
  }
  std::vector<KernelPattern> out;
  const auto& a = j.at("patterns");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string where = "patterns[" + std::to_string(i) + "]";
    const auto& e = a[i];
    if (!e.is_object() || e.size() != 2 || !e.contains("class") || !e.contains("regex") || !e.at("class").is_string() ||
        !e.at("regex").is_string() || e.at("class").get<std::string>().empty()) {
      throw InputError(file, where, e.dump().substr(0, 60), "expected {\"class\": NAME, \"regex\": PATTERN}");
    }
    KernelPattern p{e.at("class").get<std::string>(), e.at("regex").get<std::string>()};
    try {
      std::regex re(p.regex);
    } catch (const std::regex_error& err) {
      throw InputError(file, where + ".regex", p.regex, std::string("not a valid regular expression: ") + err.what());
    }
    out.push_back(std::move(p));
  }
  return out;
}

KernelImport import_kernels(const std::vector<KernelTiming>& kernels, const std::vector<KernelPattern>& patterns,
                            const std::string& device, const std::string& source_file) {
  std::vector<std::pair<std::string, std::regex>> compiled;
  for (const auto& p : patterns) compiled.push_back({p.op_class, std::regex(p.regex, std::regex::icase)});
  KernelImport out;
  auto& h = out.trace.header;
  h.backend = "cuda";
  h.device = device;
  h.cpu_model = "unknown";
  h.git_commit = "unknown";
  h.host = "unknown";
  h.date = "unknown";
  h.plan = "import:" + source_file;
  for (const auto& k : kernels) {
    std::string cls;
    for (const auto& [c, re] : compiled) {
      if (std::regex_search(k.name, re)) {
        cls = c;
        break;
      }
    }
    if (cls.empty()) {
      out.unmapped[k.name] += k.instances;
      continue;
    }
    ++out.kernels[cls];
    out.instances[cls] += k.instances;
    if (k.median_s <= 0.0) continue;  // a 0 ns row times nothing
    traces::CalibrationMeasurement m;
    m.op = cls;
    m.dtype = dtype_of(k.name);
    m.shape = nlohmann::ordered_json{{"kernel", k.name}};
    m.repetitions = std::max(1, k.instances);
    m.median_s = k.median_s;
    m.p10_s = std::min(k.p10_s, k.median_s);
    m.p90_s = std::max(k.p90_s, k.median_s);
    out.trace.measurements.push_back(std::move(m));
  }
  return out;
}

}  // namespace fleetcast::calibration
