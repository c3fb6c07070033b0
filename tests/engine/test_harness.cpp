// The harness: what it asks of a backend, in which order, and what it records. A scripted fake backend
// makes each path visible; the CPU backend then runs a small plan for real into a trace that reads back.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include "fleetcast/engine/cpu_backend.hpp"
#include "fleetcast/engine/harness.hpp"
#include "fleetcast/engine/summary.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast::engine;
using Catch::Detail::Approx;

namespace {

// Every run takes 2 ms (p10 1, p90 3 over three samples); rmsnorm is unsupported; a check can be made to fail.
class FakeBackend : public Backend {
public:
  std::vector<std::string> calls;
  bool fail_checks = false;

  std::string name() const override { return "fake"; }
  fleetcast::traces::CalibrationHeader describe() const override {
    fleetcast::traces::CalibrationHeader h;
    h.backend = "cuda";
    h.device = "NVIDIA H200";
    return h;
  }
  Support support(const OpInfo& op, const std::string& dtype, const Shape&) const override {
    if (op.name == "rmsnorm") return {false, dtype, "no kernel"};
    return {true, dtype == "fp8" ? "bf16" : dtype, ""};  // fp8 runs as bf16: the two requests merge
  }
  class Op : public PreparedOp {
  public:
    Op(FakeBackend& b, std::string what) : b_(b), what_(std::move(what)) {}
    void run() override {}
    CheckResult check(bool full) override {
      b_.calls.push_back(std::string(full ? "full " : "sampled ") + what_);
      if (b_.fail_checks) throw CheckFailed(what_ + ": result differs");
      return {0.001, 10};
    }

  private:
    FakeBackend& b_;
    std::string what_;
  };
  std::unique_ptr<PreparedOp> prepare(const OpInfo& op, const std::string& dtype, const Shape& s) override {
    return std::make_unique<Op>(*this, op.name + " " + dtype + " " + s.text());
  }
  std::vector<double> time(PreparedOp&, const TimingOptions& o) override {
    calls.push_back("time warmup " + std::to_string(o.warmup) + " reps " + std::to_string(o.repetitions));
    return {0.003, 0.001, 0.002};
  }
  std::optional<fleetcast::specs::HardwareSpec> datasheet() const override {
    return fleetcast::specs::hardware_preset("h200");
  }
};

Plan small_plan() {
  return parse_plan(nlohmann::json::parse(R"({"name": "small", "warmup": 2, "repetitions": 3, "ops": [
      {"op": "gemm", "dtypes": ["bf16", "fp8"], "sweep": {"m": [1, 4], "n": [64], "k": [64]}},
      {"op": "rmsnorm", "dtypes": ["bf16"], "sweep": {"tokens": [1], "hidden": [64]}},
      {"op": "swiglu", "dtypes": ["bf16"], "sweep": {"tokens": [2], "width": [64]}}]})"),
                    "small.json");
}

}  // namespace

TEST_CASE("harness: small check first, then per case a sampled check and the timing", "[engine][harness]") {
  FakeBackend b;
  const RunOutcome out = run_plan(small_plan(), b, {});
  // The fp8 GEMMs run as bf16, so they are the same cases as the bf16 ones and measured once.
  REQUIRE(out.trace.measurements.size() == 3);
  REQUIRE(out.skipped.size() == 1);
  CHECK(out.skipped[0].op_case.op == "rmsnorm");
  CHECK(out.skipped[0].reason == "no kernel");
  REQUIRE(b.calls.size() == 2 + 3 * 2);
  CHECK(b.calls[0] == "full gemm bf16 m=33 n=80 k=128");
  CHECK(b.calls[1] == "full swiglu bf16 tokens=5 width=96");
  CHECK(b.calls[2] == "sampled gemm bf16 m=1 n=64 k=64");
  CHECK(b.calls[3] == "time warmup 2 reps 3");
  const auto& m = out.trace.measurements[0];
  CHECK(m.op == "gemm");
  CHECK(m.dtype == "bf16");
  CHECK(m.shape.dump() == R"({"m":1,"n":64,"k":64})");
  CHECK(m.repetitions == 3);
  CHECK(m.median_s == 0.002);
  CHECK(m.p10_s == Approx(0.0012));
  CHECK(m.p90_s == Approx(0.0028));
  CHECK(m.flops == 2.0 * 64 * 64);
  CHECK(m.achieved_tflops == Approx(m.flops / 0.002 / 1e12));
  CHECK(m.achieved_gb_per_s == Approx(m.bytes / 0.002 / 1e9));
  CHECK(m.checked);
  CHECK(m.max_rel_error == 0.001);
  CHECK(out.trace.header.plan == "small");
  CHECK_FALSE(out.trace.header.git_commit.empty());
  CHECK(out.trace.header.date.size() == 20);
}

TEST_CASE("harness: a failed check stops the run", "[engine][harness]") {
  FakeBackend b;
  b.fail_checks = true;
  CHECK_THROWS_AS(run_plan(small_plan(), b, {}), CheckFailed);
  CHECK(b.calls.size() == 1);  // nothing timed
}

TEST_CASE("harness: the summary holds rates against the datasheet", "[engine][harness]") {
  FakeBackend b;
  const std::string s = summary_text(run_plan(small_plan(), b, {}), b.datasheet());
  CHECK_THAT(s, Catch::Contains("3 cases measured, 1 skipped"));
  CHECK_THAT(s, Catch::Contains("against the h200 datasheet"));
  CHECK_THAT(s, Catch::Contains("of 989 TFLOPS"));
  CHECK_THAT(s, Catch::Contains("of 4800 GB/s"));
  CHECK_THAT(s, Catch::Contains("rmsnorm bf16: no kernel"));
}

TEST_CASE("harness: the CPU backend runs a plan into a trace that reads back", "[engine][harness]") {
  auto backend = make_cpu_backend();
  const Plan plan = parse_plan(nlohmann::json::parse(R"({"name": "tiny", "warmup": 1, "repetitions": 3, "ops": [
      {"op": "gemm", "dtypes": ["bf16"], "sweep": {"m": [2], "n": [32], "k": [16]}},
      {"op": "attention_decode_mla", "dtypes": ["bf16"], "sweep": {"batch": [1], "context": [20], "q_heads": [2],
       "latent_dim": [512], "rope_dim": [64], "page_size": [8]}},
      {"op": "memcpy", "sweep": {"bytes": [100000]}}]})"),
                               "tiny.json");
  std::vector<std::string> log;
  const RunOutcome out = run_plan(plan, *backend, [&](const std::string& l) { log.push_back(l); });
  REQUIRE(out.trace.measurements.size() == 3);
  CHECK(out.small_checks.size() == 3);
  CHECK(log.size() == 6);
  CHECK(out.trace.header.backend == "cpu");
  CHECK(out.trace.header.cpu_cores >= 1);
  CHECK(out.trace.header.cuda_version.empty());
  for (const auto& m : out.trace.measurements) {
    CHECK(m.dtype == (m.op == "memcpy" ? "u8" : "fp32"));
    CHECK(m.p10_s <= m.median_s);
    CHECK(m.median_s <= m.p90_s);
    CHECK(m.achieved_gb_per_s > 0.0);
  }
  const auto path = std::filesystem::temp_directory_path() / ("engine-trace-" + std::to_string(::getpid()) + ".jsonl");
  fleetcast::traces::write_calibration_trace(path, out.trace);
  CHECK(fleetcast::traces::read_calibration_trace(path) == out.trace);
  std::filesystem::remove(path);
}
