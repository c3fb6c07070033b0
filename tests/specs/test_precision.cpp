// Precision sizes and classes, the hardware's peak rates, and the enum spellings.

#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/precision.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

TEST_CASE("bytes_per_element includes block scales", "[specs][precision]") {
  CHECK(bytes_per_element(Precision::fp32) == 4.0);
  CHECK(bytes_per_element(Precision::bf16) == 2.0);
  CHECK(bytes_per_element(Precision::fp16) == 2.0);
  CHECK(bytes_per_element(Precision::fp8) == 1.0);
  CHECK(bytes_per_element(Precision::fp4) == 0.53125);
  CHECK(bytes_per_element(Precision::nvfp4) == 0.5625);
  CHECK(bytes_per_element(Precision::int4) == 0.5625);  // 4 bits + a 16-bit scale per 32
}

TEST_CASE("compute_class maps each format to a tensor-core rate", "[specs][precision]") {
  CHECK(compute_class(Precision::fp32) == "fp32");
  CHECK(compute_class(Precision::bf16) == "bf16");
  CHECK(compute_class(Precision::fp16) == "bf16");
  CHECK(compute_class(Precision::fp8) == "fp8");
  CHECK(compute_class(Precision::fp4) == "fp4");
  CHECK(compute_class(Precision::nvfp4) == "fp4");
  CHECK(compute_class(Precision::int4) == "bf16");  // weight-only: dequantised, BF16 MMAs
}

TEST_CASE("precision names parse and print both ways", "[specs][precision]") {
  for (Precision p :
       {Precision::fp32, Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp4, Precision::nvfp4,
        Precision::int4}) {
    auto back = parse_precision(to_string(p));
    REQUIRE(back.has_value());
    CHECK(*back == p);
  }
  CHECK(to_string(Precision::nvfp4) == "nvfp4");
  CHECK_FALSE(parse_precision("int8").has_value());
  CHECK_FALSE(parse_precision("BF16").has_value());
  CHECK(valid_precisions() == "fp32, bf16, fp16, fp8, fp4, nvfp4, int4");
}

TEST_CASE("enum to_string spellings match the spec format", "[specs][precision]") {
  CHECK(to_string(RouterPolicy::least_outstanding) == "least_outstanding");
  CHECK(to_string(LengthKind::lognormal) == "lognormal");
  CHECK(to_string(ArrivalKind::closed_loop) == "closed_loop");
  CHECK(to_string(PricingKind::on_demand) == "on_demand");
  CHECK(to_string(PricingKind::reserved) == "reserved");
}

TEST_CASE("HardwareSpec::peak_flops converts TFLOPS and throws for an absent class", "[specs][hardware]") {
  const HardwareSpec h = parse_hardware(hardware_json(), "hw.json");
  CHECK(h.peak_flops("bf16") == 989e12);
  CHECK(h.peak_flops(std::string(compute_class(Precision::fp8))) == 1979e12);
  CHECK(h.supports("fp8"));
  CHECK_FALSE(h.supports("fp4"));
  CHECK_THROWS_AS(h.peak_flops("fp4"), fleetcast::InputError);
  CHECK_THROWS_WITH(h.peak_flops(std::string(compute_class(Precision::fp32))),
                    Catch::Contains("fp32") && Catch::Contains("hw-test") && Catch::Contains("bf16, fp8"));
  CHECK(h.hbm_bytes() == 80e9);
  CHECK(h.nic_bytes_per_s() == 50e9);
}
