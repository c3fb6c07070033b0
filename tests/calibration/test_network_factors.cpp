// SimGrid network factors fitted to send/recv traces (docs/CALIBRATION.md, "Network factors"): what the
// factored route gives (the time CM02 gives a lone transfer: route latency x factor + bytes / (route bandwidth
// x factor)) against the measured and the true curve; the simulated transfers themselves are checked in
// tests/simulator/test_platform.cpp.
#include <catch2/catch.hpp>
#include <cmath>

#include "fleetcast/calibration/fit.hpp"
#include "fleetcast/calibration/profile_store.hpp"
#include "fleetcast/calibration/quality_report.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/presets.hpp"
#include "synthetic_trace.hpp"

using namespace fleetcast;

namespace {

calibration::Profile fit(const traces::CalibrationTrace& t) {
  return calibration::fit_profile({calibration::fit_input_from_text(traces::to_jsonl(t), "t.jsonl")}, {});
}

double ape(double predicted, double measured) { return std::abs(predicted / measured - 1.0); }

}  // namespace

TEST_CASE("send/recv over NVLink fits factors that reproduce the measured curve", "[calibration][network]") {
  const test::TransferCurve curve;
  // 2% noise (normal, multiplicative): the size of run-to-run spread nccl-tests shows on a quiet node.
  const auto trace = test::send_recv_trace("NVIDIA H100 80GB HBM3", curve, 2, 0.02, 7);
  const auto p = fit(trace);
  REQUIRE(p.network_factors.size() == 1);
  const auto& f = p.network_factors[0];
  CHECK(f.transport == "nvlink");
  // The reference is the platform's route: two NVLink ports of 1 us, one direction of 900 GB/s x efficiency.
  CHECK(f.route_latency_s == Approx(2e-6));
  CHECK(f.route_bytes_per_s == Approx(450e9 * p.nvlink_efficiency));
  CHECK(f.points == 19);
  CHECK(f.bands.size() == 4);  // 19 sizes, four per band (the last ones five)
  CHECK(f.bands.front().min_bytes == 0.0);
  // Small messages: the latency dominates, 8 us against the route's 2 us.
  CHECK(f.bands.front().latency_factor == Approx(4.0).epsilon(0.25));
  // Every measured size within 7% of its measurement and 8% of the true curve: over 500 draws of this 2% noise
  // (a Python replica of the fit) the worst point was 6.0% and 7.1% off; a point's error is its own noise (up to
  // three sigma, 6%) plus what the band's line keeps of its neighbours' noise and of the curvature of
  // efficiency(bytes) over the 8x in size a band spans.
  for (const auto& m : trace.measurements) {
    const double bytes = m.shape.at("bytes").get<double>();
    INFO("bytes " << bytes);
    CHECK(ape(f.transfer_time_s(bytes), m.median_s) < 0.07);
    CHECK(ape(f.transfer_time_s(bytes), curve.time_s(bytes)) < 0.08);
  }
  CHECK(f.max_ape < 0.07);
  CHECK(f.median_ape < 0.03);
  // Beyond the measured range (256 MiB) the last band's line, i.e. the bandwidth the largest messages reached,
  // which the saturated curve keeps: within 5% of it 4 to 64x beyond (worst of the 500 draws: 3.6%).
  const auto& last = f.bands.back();
  for (double bytes : {1073741824.0, 4294967296.0, 17179869184.0}) {
    INFO("bytes " << bytes);
    CHECK(f.transfer_time_s(bytes) ==
          Approx(f.route_latency_s * last.latency_factor + bytes / (f.route_bytes_per_s * last.bandwidth_factor)));
    CHECK(ape(f.transfer_time_s(bytes), curve.time_s(bytes)) < 0.05);
  }
  // Without factors the route would take 2 us for a 4 KiB message that took 8 us.
  CHECK(ape(f.route_latency_s + 4096.0 / f.route_bytes_per_s, curve.time_s(4096.0)) > 0.5);
}

TEST_CASE("send/recv between nodes fits NIC factors against NIC, fabric and NIC", "[calibration][network]") {
  test::TransferCurve curve;
  curve.latency_s = 20e-6;
  curve.bytes_per_s = 50e9;  // 400 Gbit/s
  const auto p = fit(test::send_recv_trace("NVIDIA H100 80GB HBM3", curve, 16, 0.02, 3));
  REQUIRE(p.network_factors.size() == 1);
  const auto& f = p.network_factors[0];
  CHECK(f.transport == "nic");
  CHECK(f.route_latency_s == Approx(4e-6));
  CHECK(f.route_bytes_per_s == Approx(50e9 * p.nic_efficiency));
  CHECK(f.bands.front().latency_factor == Approx(5.0).epsilon(0.25));
  CHECK(f.transfer_time_s(1073741824.0) == Approx(curve.time_s(1073741824.0)).epsilon(0.05));
}

TEST_CASE("network factors: none without send/recv or a preset, strict JSON round trip", "[calibration][network]") {
  // A datasheet profile carries none, and writes no key for them.
  const auto ds = calibration::datasheet_profile(specs::hardware_preset("h100"), "");
  CHECK(ds.network_factors.empty());
  CHECK(!calibration::to_json(ds).contains("network_factors"));
  CHECK(calibration::network_factors_table(ds).find("none") != std::string::npos);
  // A device that is no preset has no platform to correct.
  CHECK(fit(test::send_recv_trace("Some GPU", test::TransferCurve{}, 2, 0.02, 1)).network_factors.empty());

  const auto p = fit(test::send_recv_trace("NVIDIA H100 80GB HBM3", test::TransferCurve{}, 2, 0.02, 7));
  const auto j = calibration::to_json(p);
  CHECK(calibration::parse_profile(j, "p.json").network_factors == p.network_factors);
  CHECK(calibration::network_factors_table(p).find("network factors nvlink") != std::string::npos);
  auto bad = j;
  bad["network_factors"][0]["bands"][2]["min_bytes"] = 1.0;
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"),
                    Catch::Contains("network_factors[0].bands[2].min_bytes") && Catch::Contains("ascending"));
  bad = j;
  bad["network_factors"][0]["transport"] = "pcie";
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"), Catch::Contains("network_factors[0].transport"));
  bad = j;
  bad["network_factors"][0]["bands"][0]["bandwidth_factor"] = 0.0;
  CHECK_THROWS_WITH(calibration::parse_profile(bad, "p.json"),
                    Catch::Contains("network_factors[0].bands[0].bandwidth_factor"));
}
