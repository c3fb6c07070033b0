// parse_hardware / to_json(HardwareSpec).

#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

TEST_CASE("hardware parses, ints accepted for double fields", "[specs][hardware]") {
  const HardwareSpec h = parse_hardware(hardware_json(), "hw.json");
  CHECK(h.name == "hw-test");
  CHECK(h.arch == "sm_90");
  CHECK(h.peak_tflops.size() == 2);
  CHECK(h.peak_tflops.at("fp8") == 1979.0);
  CHECK(h.hbm_gb == 80.0);
  CHECK(h.hbm_tb_per_s == 3.35);
  CHECK(h.scale_up_domain_gpus == 8);
  CHECK(h.gpus_per_node == 8);
  CHECK(h.price_usd_per_gpu_hour == 2.5);
  CHECK(h.assumed.at("price_usd_per_gpu_hour") == "made up");
}

TEST_CASE("hardware round-trips through to_json, with and without fp4", "[specs][hardware][roundtrip]") {
  json j = hardware_json();
  const HardwareSpec h = parse_hardware(j, "hw.json");
  CHECK(parse_hardware(to_json(h), "echo") == h);
  j["peak_tflops"]["fp4"] = 9000.5;
  j["scale_up_domain_gpus"] = 72;
  j["gpus_per_node"] = 4;
  const HardwareSpec h4 = parse_hardware(j, "hw.json");
  CHECK(h4.peak_flops("fp4") == 9000.5e12);
  const HardwareSpec back = parse_hardware(to_json(h4), "echo");
  CHECK(back == h4);
  CHECK(back != h);
}

TEST_CASE("a part without FP8 tensor cores (A100) has no fp8 rate", "[specs][hardware]") {
  json j = hardware_json();
  j["peak_tflops"].erase("fp8");
  const HardwareSpec h = parse_hardware(j, "hw.json");
  CHECK_FALSE(h.supports("fp8"));
  CHECK(parse_hardware(to_json(h), "echo") == h);
  const HardwareSpec a100 = hardware_preset("a100");
  CHECK(a100.arch == "sm_80");
  CHECK_FALSE(a100.supports("fp8"));
}

TEST_CASE("a mesh scale-up domain gives a group of g GPUs g - 1 of its n - 1 links", "[specs][hardware]") {
  json j = hardware_json();  // 900 GB/s both directions, 8 GPUs per domain
  const HardwareSpec switched = parse_hardware(j, "hw.json");
  CHECK(switched.scale_up_topology == "switch");
  CHECK(switched.scale_up_bytes_per_s_one_way(2) == Approx(450e9));
  CHECK(switched.scale_up_bytes_per_s_one_way(8) == Approx(450e9));
  CHECK_FALSE(to_json(switched).contains("scale_up_topology"));  // the default is not written: old echoes stay
  j["scale_up_topology"] = "mesh";
  const HardwareSpec mesh = parse_hardware(j, "hw.json");
  CHECK(mesh.scale_up_bytes_per_s_one_way(2) == Approx(450e9 / 7));      // one link of seven
  CHECK(mesh.scale_up_bytes_per_s_one_way(4) == Approx(450e9 * 3 / 7));  // three
  CHECK(mesh.scale_up_bytes_per_s_one_way(8) == Approx(450e9));          // all of them
  CHECK(mesh.scale_up_bytes_per_s_one_way(16) == Approx(450e9));         // no more than the domain has
  CHECK(parse_hardware(to_json(mesh), "echo") == mesh);
  j["scale_up_topology"] = "pcie";  // each GPU's own link, as behind a switch
  const HardwareSpec pcie = parse_hardware(j, "hw.json");
  CHECK(pcie.scale_up_bytes_per_s_one_way(2) == Approx(450e9));
  CHECK(pcie.scale_up_bytes_per_s_one_way(8) == Approx(450e9));
  CHECK(parse_hardware(to_json(pcie), "echo") == pcie);
  j["scale_up_topology"] = "torus";
  CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "scale_up_topology", "torus", "\"mesh\"");
}

TEST_CASE("the AMD Instinct presets are 8-GPU meshes: a pair shares one xGMI link", "[specs][hardware]") {
  // MI300X: 7 links of 64 GB/s each way (896 GB/s both ways in all), one to each peer.
  const HardwareSpec mi300x = fleetcast::specs::hardware_preset("mi300x");
  CHECK(mi300x.scale_up_topology == "mesh");
  CHECK(mi300x.scale_up_bytes_per_s_one_way(2) == Approx(64e9));
  CHECK(mi300x.scale_up_bytes_per_s_one_way(8) == Approx(448e9));
  CHECK_FALSE(mi300x.supports("fp4"));  // CDNA 3 has no FP4 matrix rate
  const HardwareSpec mi355x = fleetcast::specs::hardware_preset("mi355x");
  CHECK(mi355x.scale_up_bytes_per_s_one_way(2) == Approx(1075e9 / 2 / 7));
  CHECK(mi355x.peak_flops("fp4") == Approx(10100e12));
  // The NVSwitch parts stay switched: a pair gets every link.
  const HardwareSpec h200 = fleetcast::specs::hardware_preset("h200");
  CHECK(h200.scale_up_bytes_per_s_one_way(2) == Approx(450e9));
}

TEST_CASE("hardware errors", "[specs][hardware][errors]") {
  json j = hardware_json();
  SECTION("missing peak rate") {
    j["peak_tflops"].erase("bf16");
    CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "peak_tflops.bf16", "", "missing");
  }
  SECTION("fp4 tensor cores without fp8 ones") {
    j["peak_tflops"].erase("fp8");
    j["peak_tflops"]["fp4"] = 9000;
    CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "peak_tflops.fp4", "9000", "give fp8 too");
  }
  SECTION("unknown compute class") {
    j["peak_tflops"]["fp16"] = 989;
    CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "peak_tflops.fp16", "989", "valid keys: bf16, fp8, fp4");
  }
  SECTION("non-positive figures") {
    j["hbm_gb"] = -80;
    CHECK_INPUT_ERROR(parse_hardware(j, "hw.json", "deployment.hardware"), "deployment.hardware.hbm_gb", "-80", "> 0");
    j = hardware_json();
    j["peak_tflops"]["bf16"] = 0;
    CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "peak_tflops.bf16", "0", "> 0");
  }
  SECTION("a float for an int field") {
    j["scale_up_domain_gpus"] = 8.5;
    CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "scale_up_domain_gpus", "8.5", "expected an integer");
  }
  SECTION("a node that does not tile the scale-up domain") {
    j["gpus_per_node"] = 3;
    CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "gpus_per_node", "3", "scale_up_domain_gpus (8)");
  }
  SECTION("a string for a number") {
    j["power_w"] = "700W";
    CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "power_w", "\"700W\"", "expected a number");
  }
}

TEST_CASE("the RTX PRO 6000 preset is the Server Edition on PCIe Gen5", "[specs][hardware]") {
  const HardwareSpec rtx = fleetcast::specs::hardware_preset("rtx6000pro");
  CHECK(rtx.arch == "sm_120");
  CHECK(rtx.scale_up_topology == "pcie");
  CHECK(rtx.hbm_bytes_per_s() == Approx(1597e9));              // not the Workstation Edition's 1,792 GB/s
  CHECK(rtx.scale_up_bytes_per_s_one_way(8) == Approx(64e9));  // PCIe Gen5 x16, one way
  // NVIDIA's sparse FP4 / FP8 / BF16 figures (4, 2, 1 PFLOPS), halved: each format twice the one above it.
  CHECK(rtx.peak_flops("fp4") == Approx(2 * rtx.peak_flops("fp8")));
  CHECK(rtx.peak_flops("fp8") == Approx(2 * rtx.peak_flops("bf16")));
  CHECK(rtx.peak_flops("bf16") == Approx(500e12));
}

TEST_CASE("device_memory_gib: the memory plan's base in GiB where given, hbm_gb x 1e9 where not", "[specs][hardware]") {
  json j = hardware_json();
  CHECK(parse_hardware(j, "hw.json").hbm_bytes() == 80e9);
  j["device_memory_gib"] = 79.2;
  const HardwareSpec h = parse_hardware(j, "hw.json");
  CHECK(h.hbm_bytes() == Approx(79.2 * 1073741824.0));
  CHECK(parse_hardware(to_json(h), "echo") == h);
  j["device_memory_gib"] = 81;
  CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "device_memory_gib", "81", "(0, hbm_gb = 80");
  j["device_memory_gib"] = -1;
  CHECK_INPUT_ERROR(parse_hardware(j, "hw.json"), "device_memory_gib", "-1", "(0, hbm_gb = 80");
  // The presets hold what CUDA and HIP report, a little under the datasheet's binary gigabytes.
  for (const char* name : {"h100", "h200", "b200", "b300", "mi300x"}) {
    const HardwareSpec p = hardware_preset(name);
    INFO(name);
    CHECK(p.device_memory_gib > 0.97 * p.hbm_gb);
    CHECK(p.device_memory_gib <= p.hbm_gb);
    CHECK(p.hbm_bytes() > p.hbm_gb * 1e9);
  }
}
