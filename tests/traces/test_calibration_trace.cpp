// Calibration trace schema: byte-exact round trip, and bad or truncated files named by file, line and field.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/calibration_trace.hpp"

using fleetcast::InputError;
using namespace fleetcast::traces;

namespace {

CalibrationTrace sample_trace() {
  CalibrationTrace t;
  t.header.backend = "cuda";
  t.header.device = "NVIDIA H200";
  t.header.sm_count = 132;
  t.header.sm_clock_mhz = 1980.0;
  t.header.memory_clock_mhz = 2619.0;
  t.header.driver_version = "580.65.06";
  t.header.cuda_version = "13.0";
  t.header.cublas_version = "13.0.0";
  t.header.nccl_version = "";
  t.header.cpu_model = "Intel(R) Xeon(R) Platinum 8480+";
  t.header.cpu_cores = 224;
  t.header.git_commit = "0123456789ab";
  t.header.host = "node-7";
  t.header.date = "2025-06-01T12:34:56Z";
  t.header.plan = "node-default";
  CalibrationMeasurement gemm;
  gemm.op = "gemm";
  gemm.dtype = "bf16";
  gemm.shape = {{"m", 128}, {"n", 4096}, {"k", 4096}};
  gemm.repetitions = 50;
  gemm.median_s = 1.234567890123e-5;
  gemm.p10_s = 1.2e-5;
  gemm.p90_s = 1.3e-5;
  gemm.flops = 2.0 * 128 * 4096 * 4096;
  gemm.bytes = 2.0 * (128 * 4096 + 4096 * 4096 + 128 * 4096);
  gemm.achieved_tflops = gemm.flops / gemm.median_s / 1e12;
  gemm.achieved_gb_per_s = gemm.bytes / gemm.median_s / 1e9;
  gemm.checked = true;
  gemm.max_rel_error = 0.0031;
  CalibrationMeasurement copy;
  copy.op = "memcpy";
  copy.dtype = "bytes";
  copy.shape = {{"bytes", 1 << 30}, {"direction", "d2d"}};
  copy.repetitions = 10;
  copy.median_s = 0.001;
  copy.p10_s = 0.001;
  copy.p90_s = 0.0011;
  copy.bytes = 2.0 * (1 << 30);
  copy.achieved_gb_per_s = copy.bytes / copy.median_s / 1e9;
  copy.checked = true;
  t.measurements = {gemm, copy};
  return t;
}

std::filesystem::path temp_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("fleetcast-trace-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// The message of the InputError that parsing `text` throws.
std::string error_of(const std::string& text) {
  try {
    parse_calibration_trace(text, "t.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// The sample trace's text with one key of line `line` (1-based) removed.
std::string without_key(int line, const std::string& key) {
  std::istringstream in(to_jsonl(sample_trace()));
  std::string out, l;
  for (int i = 1; std::getline(in, l); ++i) {
    if (i == line) {
      auto j = nlohmann::ordered_json::parse(l);
      j.erase(key);
      l = j.dump();
    }
    out += l + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("calibration trace: write, read, write again gives the same bytes", "[traces]") {
  const auto dir = temp_dir();
  const auto path = dir / "trace.jsonl";
  const CalibrationTrace t = sample_trace();
  write_calibration_trace(path, t);
  const CalibrationTrace back = read_calibration_trace(path);
  CHECK(back == t);
  CHECK(to_jsonl(back) == to_jsonl(t));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  CHECK(bytes.str() == to_jsonl(t));
  // Shape keys keep the order the engine wrote them in.
  CHECK(back.measurements[0].shape.begin().key() == "m");
  // Nothing but the trace is left in the folder.
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  CHECK(files == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibration trace: each record is one line starting with its kind", "[traces]") {
  const std::string text = to_jsonl(sample_trace());
  CHECK(text.rfind("{\"record\":\"header\",\"schema\":\"fleetcast.calibration-trace/1\"", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 3);
}

TEST_CASE("calibration trace: a truncated file names the file and the line", "[traces]") {
  const std::string text = to_jsonl(sample_trace());
  // Cut in the middle of the last record, as a crash mid-write would.
  const std::string cut = text.substr(0, text.size() - 30);
  const std::string e = error_of(cut);
  CHECK_THAT(e, Catch::Contains("t.jsonl:3"));
  CHECK_THAT(e, Catch::Contains("truncated"));
  // Cut exactly before the final newline: still truncated.
  CHECK_THAT(error_of(text.substr(0, text.size() - 1)), Catch::Contains("t.jsonl:3"));
  CHECK_THAT(error_of(""), Catch::Contains("empty file"));
}

TEST_CASE("calibration trace: a missing field names the line and the field", "[traces]") {
  std::string e = error_of(without_key(2, "median_s"));
  CHECK_THAT(e, Catch::Contains("t.jsonl:2"));
  CHECK_THAT(e, Catch::Contains("'median_s'"));
  CHECK_THAT(e, Catch::Contains("missing"));
  e = error_of(without_key(1, "sm_count"));
  CHECK_THAT(e, Catch::Contains("t.jsonl:1"));
  CHECK_THAT(e, Catch::Contains("'sm_count'"));
  e = error_of(without_key(3, "checked"));
  CHECK_THAT(e, Catch::Contains("t.jsonl:3"));
  CHECK_THAT(e, Catch::Contains("'checked'"));
}

TEST_CASE("calibration trace: wrong values are rejected with the field", "[traces]") {
  const std::string good = to_jsonl(sample_trace());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  CHECK_THAT(error_of(replaced("calibration-trace/1", "calibration-trace/9")), Catch::Contains("'schema'"));
  CHECK_THAT(error_of(replaced("\"checked\":true", "\"checked\":1")), Catch::Contains("'checked'"));
  CHECK_THAT(error_of(replaced("\"gpus\":1", "\"gpus\":0")), Catch::Contains("'gpus'"));
  CHECK_THAT(error_of(replaced("\"m\":128", "\"m\":1.5")), Catch::Contains("'shape.m'"));
  CHECK_THAT(error_of(replaced("\"p10_s\":1.2e-05", "\"p10_s\":0.5")), Catch::Contains("out of order"));
  CHECK_THAT(error_of(replaced("\"plan\":", "\"plan_name\":\"x\",\"plan\":")), Catch::Contains("'plan_name'"));
  CHECK_THAT(error_of(replaced("\"backend\":\"cuda\"", "\"backend\":\"rocm\"")), Catch::Contains("'backend'"));
  // A measurement where the header should be.
  const std::string second_line = good.substr(good.find('\n') + 1);
  CHECK_THAT(error_of(second_line), Catch::Contains("t.jsonl:1"));
  CHECK_THAT(error_of(good + "\n"), Catch::Contains("empty line"));
}

TEST_CASE("calibration trace: a MoE step's expert rows round-trip; other records carry none", "[traces]") {
  CalibrationTrace t = sample_trace();
  t.measurements[1].expert_rows = {{3, 0, 5}, {1, 2, 0}};
  const std::string text = to_jsonl(t);
  CHECK(parse_calibration_trace(text, "t.jsonl") == t);
  CHECK(text.find("\"max_rel_error\":0.0,\"expert_rows\":[[3,0,5],[1,2,0]]}") != std::string::npos);
  CHECK(to_jsonl(sample_trace()).find("expert_rows") == std::string::npos);
  auto with_rows = [&](const std::string& rows) {
    std::string s = text;
    const std::string from = "[[3,0,5],[1,2,0]]";
    return s.replace(s.find(from), from.size(), rows);
  };
  CHECK_THAT(error_of(with_rows("[[3,-1,5]]")), Catch::Contains("'expert_rows'") && Catch::Contains(">= 0"));
  CHECK_THAT(error_of(with_rows("[[3,0,5],[1,2]]")), Catch::Contains("same experts"));
  CHECK_THAT(error_of(with_rows("[]")), Catch::Contains("'expert_rows'"));
  CHECK_THAT(error_of(with_rows("[[1.5]]")), Catch::Contains("integers"));
}

TEST_CASE("calibration trace: an unwritable folder is an InputError and leaves nothing", "[traces]") {
  CHECK_THROWS_AS(write_calibration_trace("/no/such/folder/t.jsonl", sample_trace()), InputError);
  auto bad = sample_trace();
  bad.measurements[0].median_s = std::nan("");
  const auto dir = temp_dir();
  CHECK_THROWS_AS(write_calibration_trace(dir / "t.jsonl", bad), std::runtime_error);
  CHECK(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}
