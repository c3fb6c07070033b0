#pragma once
// Kernel timings from profiles people already take of vLLM, SGLang or TensorRT-LLM, as a calibration trace
// (docs/CALIBRATION.md, "Import"):
// - nsys_kern_sum: `nsys stats --report cuda_gpu_kern_sum --format csv`, one row per kernel name with
//   "Time (%)","Total Time (ns)","Instances","Avg (ns)","Med (ns)","Min (ns)","Max (ns)","StdDev (ns)","Name"
//   (NVIDIA Nsight Systems Post-Collection Analysis Guide, cuda_gpu_kern_sum);
// - nsys_trace: `nsys stats --report cuda_gpu_trace --format csv`, one row per kernel or copy with
//   "Start (ns)","Duration (ns)",...,"Name" (same guide, cuda_gpu_trace);
// - chrome: the PyTorch profiler's Chrome trace (torch.profiler ... export_chrome_trace, written by Kineto's
//   libkineto/src/output_json.cpp): {"traceEvents": [{"ph": "X", "cat": "kernel", "name", "ts", "dur"}]},
//   times in microseconds.
// Kernel names map to op classes by the first matching regex (user patterns first, then the default table).

#include <map>
#include <string>
#include <vector>

#include "fleetcast/traces/calibration_trace.hpp"

namespace fleetcast::calibration {

enum class KernelFormat { nsys_kern_sum, nsys_trace, chrome };
KernelFormat parse_kernel_format(const std::string& name);  // "nsys-kern-sum", "nsys-trace", "chrome"
// From the content: a JSON object is a Chrome trace, a CSV header with "Instances" a kernel summary, one
// with "Start (ns)" a GPU trace. InputError when it is none of these.
KernelFormat detect_kernel_format(const std::string& text, const std::string& file);

struct KernelPattern {
  std::string op_class;  // "gemm", "attention", ...
  std::string regex;     // ECMAScript, case-insensitive, searched anywhere in the kernel name
};
// The shipped table (calibration/src/kernel_patterns.cpp).
std::vector<KernelPattern> default_kernel_patterns();
// A --map file: {"patterns": [{"class": "moe", "regex": "my_moe_kernel"}, ...]}, strictly read.
std::vector<KernelPattern> read_kernel_patterns(const std::string& text, const std::string& file);

// One kernel name's timings over its instances.
struct KernelTiming {
  std::string name;
  int instances = 0;
  double median_s = 0.0, p10_s = 0.0, p90_s = 0.0;
  double total_s = 0.0;
};
std::vector<KernelTiming> read_kernel_timings(const std::string& text, const std::string& file, KernelFormat f);

struct KernelImport {
  traces::CalibrationTrace trace;        // one measurement per mapped kernel name
  std::map<std::string, int> kernels;    // op class -> distinct kernel names mapped to it
  std::map<std::string, int> instances;  // op class -> kernel launches mapped to it
  std::map<std::string, int> unmapped;   // kernel name -> launches, for names no pattern matched
};
// `device` goes into the trace header (the profiles hold no device name). User patterns come first.
KernelImport import_kernels(const std::vector<KernelTiming>& kernels, const std::vector<KernelPattern>& patterns,
                            const std::string& device, const std::string& source_file);

}  // namespace fleetcast::calibration
