// Kernel timings from nsys and PyTorch-profiler files (fixtures written as those tools write them, with
// vLLM's kernel names on an H100) mapped to op classes.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/calibration/kernel_import.hpp"
#include "fleetcast/specs/error.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(FLEETCAST_CALIBRATION_FIXTURES) + "/" + name, std::ios::binary);
  REQUIRE(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

calibration::KernelImport import(const std::string& name, std::vector<calibration::KernelPattern> extra = {}) {
  const std::string text = fixture(name);
  const auto format = calibration::detect_kernel_format(text, name);
  auto patterns = extra;
  for (auto& p : calibration::default_kernel_patterns()) patterns.push_back(p);
  return calibration::import_kernels(calibration::read_kernel_timings(text, name, format), patterns,
                                     "NVIDIA H100 80GB HBM3", name);
}

}  // namespace

TEST_CASE("an nsys kernel summary maps kernels to op classes", "[calibration][import]") {
  CHECK(calibration::detect_kernel_format(fixture("vllm_kern_sum.csv"), "x") ==
        calibration::KernelFormat::nsys_kern_sum);
  const auto r = import("vllm_kern_sum.csv");
  // cuBLASLt nvjet and sm90_xmma GEMMs; FlashAttention (its name also says cutlass: attention comes first);
  // RMSNorm, SiLU-and-mul and rotary as elementwise; NCCL all-reduce; fused_moe; argmax and index_select
  // (sampling, embedding) left unmapped.
  CHECK(r.kernels ==
        std::map<std::string, int>{{"attention", 1}, {"collective", 1}, {"elementwise", 3}, {"gemm", 2}, {"moe", 1}});
  CHECK(r.instances.at("gemm") == 25600);
  CHECK(r.instances.at("elementwise") == 25600);
  CHECK(r.unmapped.size() == 2);
  CHECK(r.trace.measurements.size() == 8);
  const auto& first = r.trace.measurements.front();
  CHECK(first.op == "gemm");
  CHECK(first.median_s == Approx(9920e-9));
  CHECK(first.p10_s == Approx(9504e-9));  // nsys' Min stands in for p10
  CHECK(first.repetitions == 19200);
  CHECK(r.trace.measurements[1].dtype == "bf16");  // sm90_xmma_gemm_bf16bf16_...
}

TEST_CASE("an nsys GPU trace is summarised per kernel name", "[calibration][import]") {
  CHECK(calibration::detect_kernel_format(fixture("vllm_gpu_trace.csv"), "x") == calibration::KernelFormat::nsys_trace);
  const auto r = import("vllm_gpu_trace.csv");
  CHECK(r.kernels == std::map<std::string, int>{{"attention", 1}, {"elementwise", 1}, {"gemm", 1}, {"memcpy", 1}});
  CHECK(r.instances.at("elementwise") == 3);
  CHECK(r.instances.at("gemm") == 2);
  CHECK(r.unmapped.size() == 1);
  for (const auto& m : r.trace.measurements) {
    if (m.op != "elementwise") continue;
    // RMSNorm launches of 2000, 2600 and 2100 ns: median 2100, p10 2000 + 0.2 x 100 = 2020.
    CHECK(m.median_s == Approx(2100e-9));
    CHECK(m.p10_s == Approx(2020e-9));
    CHECK(m.p90_s == Approx(2500e-9));
  }
}

TEST_CASE("a PyTorch profiler Chrome trace keeps only kernel events", "[calibration][import]") {
  CHECK(calibration::detect_kernel_format(fixture("vllm_chrome_trace.json"), "x") == calibration::KernelFormat::chrome);
  const auto r = import("vllm_chrome_trace.json");
  // cpu_op, cuda_runtime, gpu_memcpy and metadata events are not kernels.
  CHECK(r.kernels == std::map<std::string, int>{{"attention", 1}, {"collective", 1}, {"elementwise", 1}, {"gemm", 1}});
  CHECK(r.instances.at("gemm") == 2);
  CHECK(r.unmapped.size() == 1);
  for (const auto& m : r.trace.measurements) {
    if (m.op == "gemm") CHECK(m.median_s == Approx(0.5 * (9.920 + 10.304) * 1e-6));  // "dur" is in microseconds
  }
}

TEST_CASE("user patterns come before the default table", "[calibration][import]") {
  const auto r = import("vllm_kern_sum.csv", calibration::read_kernel_patterns(
                                                 R"({"patterns": [{"class": "sampling", "regex": "ArgMaxOps"},
                                                                  {"class": "embedding", "regex": "indexSelect"}]})",
                                                 "map.json"));
  CHECK(r.unmapped.empty());
  CHECK(r.kernels.at("sampling") == 1);
  CHECK(r.kernels.at("embedding") == 1);
  CHECK_THROWS_WITH(calibration::read_kernel_patterns(R"({"patterns": [{"class": "x", "regex": "("}]})", "map.json"),
                    Catch::Contains("patterns[0].regex"));
}

TEST_CASE("an imported trace round-trips through the trace reader and fits", "[calibration][import]") {
  const auto r = import("vllm_kern_sum.csv");
  const std::string text = traces::to_jsonl(r.trace);
  const auto input = calibration::fit_input_from_text(text, "imported.jsonl");
  CHECK(input.trace == r.trace);
  const auto p = calibration::fit_profile({input}, {});
  CHECK(p.hardware == "h100");
  // One predictor per kernel (its name is the variant); with no FLOP counts each keeps its measured time.
  CHECK(p.predictors.size() == 8);
  for (const auto& m : r.trace.measurements) {
    for (const auto& pr : p.predictors) {
      if (pr.variant == "kernel=" + m.shape.at("kernel").get<std::string>()) {
        CHECK(pr.predict({}, 0.0, 0.0) == Approx(m.median_s));
      }
    }
  }
}

TEST_CASE("truncated kernel files fail naming the line", "[calibration][import]") {
  std::string csv = fixture("vllm_kern_sum.csv");
  csv = csv.substr(0, csv.find("(flash::Flash_fwd_params)"));
  CHECK_THROWS_WITH(calibration::read_kernel_timings(csv, "cut.csv", calibration::KernelFormat::nsys_kern_sum),
                    Catch::Contains("cut.csv:4"));
  std::string bad = fixture("vllm_kern_sum.csv");
  bad.replace(bad.find("19200"), 5, "many");
  CHECK_THROWS_WITH(calibration::read_kernel_timings(bad, "bad.csv", calibration::KernelFormat::nsys_kern_sum),
                    Catch::Contains("bad.csv:2") && Catch::Contains("Instances"));
  std::string json = fixture("vllm_chrome_trace.json");
  CHECK_THROWS_WITH(
      calibration::read_kernel_timings(json.substr(0, 2000), "cut.json", calibration::KernelFormat::chrome),
      Catch::Contains("cut.json"));
}
