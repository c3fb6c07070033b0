// Fitting whole traces: quality numbers, collectives, sources with the trace's hash, strict reading.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/sha256.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "synthetic_trace.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

calibration::Profile fit(const traces::CalibrationTrace& t, const std::string& hardware = "") {
  return calibration::fit_profile({calibration::fit_input_from_text(traces::to_jsonl(t), "t.jsonl")}, {hardware, ""});
}

// Three copies on a CPU: 1 MB in 100 us, 2 MB in 250 us, 4 MB in 400 us. The peak is the best copy rate,
// 10 GB/s (1 MB and 4 MB), so the points' memory efficiencies are 1.0, 0.8, 1.0.
traces::CalibrationTrace three_copies() {
  auto t = test::empty_trace("Test CPU", "cpu");
  t.measurements.push_back(test::measurement("memcpy", "u8", {{"bytes", 1000000}}, 1e-4, 0.0, 1e6));
  t.measurements.push_back(test::measurement("memcpy", "u8", {{"bytes", 2000000}}, 2.5e-4, 0.0, 2e6));
  t.measurements.push_back(test::measurement("memcpy", "u8", {{"bytes", 4000000}}, 4e-4, 0.0, 4e6));
  return t;
}

}  // namespace

TEST_CASE("leave-one-out on three points, by hand", "[calibration][quality]") {
  const auto p = fit(three_copies());
  REQUIRE(p.quality.size() == 1);
  const auto& q = p.quality.front();
  // Without 2 MB: log-log interpolation between (1 MB, 100 us) and (4 MB, 400 us) gives 200 us: APE 0.2.
  // Without 1 MB: the trend through 0.8 at 2 MB and 1.0 at 4 MB gives 0.6 at 1 MB, clipped to the band's 0.8:
  //   1 MB / 8 GB/s = 125 us against 100 us: APE 0.25.
  // Without 4 MB: 1.0 at 1 MB, 0.8 at 2 MB -> 0.6 at 4 MB, clipped to 0.8: 500 us against 400 us: APE 0.25.
  // (t0 = 0 in both refits: any t0 > 0 would need an efficiency above 1 at the fastest point.)
  CHECK(q.points == 3);
  CHECK(q.loo_median_ape == Approx(0.25).epsilon(1e-9));
  CHECK(q.loo_max_ape == Approx(0.25).epsilon(1e-9));
  // Held-out shapes: the largest `bytes` (4 MB) left out, as above.
  CHECK(q.held_out_points == 1);
  CHECK(q.held_out_median_ape == Approx(0.25).epsilon(1e-9));
  CHECK(q.range.at("bytes") == std::pair{1e6, 4e6});
  CHECK(p.predictors.front().roofline.peaks.bytes_per_s == Approx(1e10));
  CHECK(p.predictors.front().roofline.peaks.source.find("measured: ") == 0);
}

TEST_CASE("a fitted profile cites the trace's SHA-256 and survives a round trip", "[calibration][profile]") {
  const std::string text = traces::to_jsonl(three_copies());
  const auto input = calibration::fit_input_from_text(text, "copies.jsonl");
  CHECK(input.sha256 == calibration::sha256_hex(text));
  const auto p = calibration::fit_profile({input}, {"my-cpu", ""});
  CHECK(p.kind == "fitted");
  CHECK(p.hardware == "my-cpu");
  REQUIRE(p.traces.size() == 1);
  CHECK(p.traces[0].sha256.size() == 64);
  CHECK(p.sources.at("memory_efficiency").find("sha256:" + input.sha256.substr(0, 16)) != std::string::npos);
  // The trend through efficiencies 1.0, 0.8, 1.0 at ln(bytes) evenly spaced has slope 0: the mean, 2.8 / 3.
  CHECK(p.memory_efficiency == Approx(2.8 / 3.0).epsilon(1e-9));

  const auto path = std::filesystem::temp_directory_path() / "fleetcast-test-profile.json";
  calibration::write_profile(path, p);
  const auto back = calibration::read_profile(path);
  CHECK(calibration::to_json(back) == calibration::to_json(p));
  CHECK(back.predictors == p.predictors);
  // The host time per eager kernel launch is written only where set, and read back as written.
  CHECK(!calibration::to_json(p).contains("eager_launch_s"));
  auto eager = p;
  eager.eager_launch_s = 2.3e-5;
  calibration::write_profile(path, eager);
  CHECK(calibration::read_profile(path).eager_launch_s == 2.3e-5);
  std::filesystem::remove(path);
}

TEST_CASE("SHA-256 of known messages", "[calibration][profile]") {
  // FIPS 180-2 appendix B.1 ("abc", one block) and B.2 (448 bits, so the padding takes a second block).
  CHECK(calibration::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(calibration::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("collective fits recover latency and bus bandwidth", "[calibration][collectives]") {
  // 8-GPU all-reduce: 20 us + size / algbw with a bus bandwidth of 360 GB/s (algbw = busbw / (2 * 7 / 8)),
  // 1 KiB to 1 GiB, 2% lognormal noise. Relative-error least squares gets both within a few percent.
  auto t = test::empty_trace("NVIDIA H100 80GB HBM3", "cuda");
  test::Noise noise(0.02, 11);
  const double busbw = 360e9, algbw = busbw / 1.75, latency = 20e-6;
  for (double size = 1024; size <= 1073741824.0; size *= 4) {
    auto m = test::measurement("all_reduce", "bf16", {{"bytes", static_cast<long long>(size)}, {"gpus", 8}},
                               (latency + size / algbw) * noise(), 0.0, size);
    m.gpus = 8;
    t.measurements.push_back(m);
  }
  const auto p = fit(t);
  const calibration::CollectiveModel* ar = nullptr;
  int datasheet = 0;
  for (const auto& c : p.collectives) {
    if (c.op == "all_reduce" && c.points > 0) ar = &c;
    if (c.points == 0) {
      ++datasheet;
      CHECK(c.source.find("datasheet") == 0);
    }
  }
  REQUIRE(ar != nullptr);
  CHECK(ar->gpus == 8);
  CHECK(ar->transport == "nvlink");
  CHECK(ar->latency_s == Approx(latency).epsilon(0.15));
  CHECK(ar->bus_bytes_per_s == Approx(busbw).epsilon(0.03));
  // SimGrid bandwidth factor of the largest band against the H100's 450 GB/s one-way NVLink: 0.8.
  REQUIRE(!ar->bands.empty());
  CHECK(ar->bands.back().bandwidth_factor == Approx(busbw / 450e9).epsilon(0.03));
  CHECK(datasheet == 4);  // all_gather, reduce_scatter, all_to_all at 8 GPUs and send_recv over the NIC
  CHECK(p.nvlink_efficiency == Approx(0.8).epsilon(0.03));
}

TEST_CASE("bad or truncated traces fail naming the line and field", "[calibration][trace]") {
  std::string text = traces::to_jsonl(three_copies());
  const std::string truncated = text.substr(0, text.size() - 20);
  CHECK_THROWS_WITH(calibration::fit_input_from_text(truncated, "cut.jsonl"), Catch::Contains("cut.jsonl:4"));
  std::string bad = text;
  bad.replace(bad.find("\"median_s\":0.0001"), 17, "\"median_s\":\"fast\"");
  CHECK_THROWS_WITH(calibration::fit_input_from_text(bad, "bad.jsonl"),
                    Catch::Contains("bad.jsonl:2") && Catch::Contains("median_s"));
}

TEST_CASE("a bad v2 profile field is an error naming its path", "[calibration][profile]") {
  auto j = calibration::to_json(fit(three_copies()));
  auto bad = j;
  bad["predictors"][0]["roofline"]["t0_s"] = -1.0;
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("predictors[0].roofline.t0_s"));
  bad = j;
  bad["predictors"][0]["points"][1]["dims"] = {1, 2};
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("predictors[0].points[1].dims"));
  bad = j;
  bad["traces"][0]["sha256"] = "abc";
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("traces[0].sha256"));
  bad = j;
  bad["quality"][0]["loo_maxape"] = 0.1;
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("quality[0].loo_maxape"));
}

TEST_CASE("a fitted profile wins over the datasheet one, and a user folder's over a shipped one",
          "[calibration][profile]") {
  const auto hw = specs::hardware_preset("h200");
  auto fitted = calibration::datasheet_profile(hw, "");
  fitted.kind = "fitted";
  fitted.memory_efficiency = 0.77;
  const std::vector<calibration::Profile> all = {fitted, calibration::datasheet_profile(hw, "")};
  CHECK(calibration::select_profile(all, hw, "vllm").memory_efficiency == 0.77);
}
