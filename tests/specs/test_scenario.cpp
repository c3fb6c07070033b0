// parse_scenario / load_scenario / to_json(ScenarioSpec): resolution, defaults, cross checks.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

TEST_CASE("a scenario with inline parts parses with its defaults", "[specs][scenario]") {
  const ScenarioSpec s = parse_scenario(scenario_json(), "s.json");
  CHECK(s.name == "scenario-test");
  CHECK(s.model == parse_model(gqa_model_json(), "x"));
  CHECK(s.deployment == parse_deployment(deployment_json(), "x"));
  CHECK(s.workload == parse_workload(workload_json(), "x"));
  CHECK(s.seed == 1);
  CHECK(s.num_requests == 1000);
  CHECK(s.measurement.warmup_fraction == 0.1);
  CHECK(s.measurement.cooldown_fraction == 0.1);
  CHECK(s.measurement.sample_interval_s == 1.0);
  CHECK(s.cost.usd_per_gpu_hour == 2.5);  // resolved to the hardware's price
  CHECK(s.cost.pricing == PricingKind::on_demand);
  CHECK(s.cost.reserved_discount == 0.0);
}

TEST_CASE("the resolved scenario is canonical and round-trips", "[specs][scenario][roundtrip]") {
  json j = scenario_json();
  j["seed"] = 42;
  j["measurement"] = {{"warmup_fraction", 0.2}, {"cooldown_fraction", 0}, {"sample_interval_s", 0.5}};
  j["cost"] = {{"usd_per_gpu_hour", 1.75}, {"pricing", "reserved"}, {"reserved_discount", 0.3}};
  const ScenarioSpec s = parse_scenario(j, "s.json");
  CHECK(s.seed == 42);
  CHECK(s.cost.usd_per_gpu_hour == 1.75);
  CHECK(s.cost.pricing == PricingKind::reserved);
  CHECK(s.measurement.cooldown_fraction == 0.0);

  CHECK(s.resolved == to_json(s));
  CHECK_FALSE(s.resolved.contains("resolved"));
  CHECK(s.resolved["cost"]["usd_per_gpu_hour"] == 1.75);
  CHECK(s.resolved["deployment"]["hardware"].is_object());
  const ScenarioSpec back = parse_scenario(s.resolved, "echo");
  CHECK(back == s);
  CHECK(to_json(back) == s.resolved);

  const ScenarioSpec defaults = parse_scenario(scenario_json(), "s.json");
  CHECK(defaults.resolved["cost"]["usd_per_gpu_hour"] == 2.5);
  CHECK(defaults.resolved["seed"] == 1);
  CHECK(parse_scenario(defaults.resolved, "echo") == defaults);
}

TEST_CASE("a scenario of files resolves them relative to each file", "[specs][scenario]") {
  ScratchDir dir;
  dir.write("parts/gpu.json", hardware_json().dump());
  json dep = deployment_json();
  dep["hardware"] = "gpu.json";  // relative to parts/
  dir.write("parts/dep.json", dep.dump());
  dir.write("model.json", mla_model_json().dump());
  dir.write("load.json", workload_json().dump());
  const auto path = dir.write("scenario.json", json{{"name", "from files"},
                                                    {"model", "model.json"},
                                                    {"deployment", "parts/dep.json"},
                                                    {"workload", "load.json"},
                                                    {"num_requests", 10}}
                                                   .dump());
  const ScenarioSpec s = load_scenario(path);
  CHECK(s.model == parse_model(mla_model_json(), "x"));
  CHECK(s.deployment.hardware == parse_hardware(hardware_json(), "x"));
  CHECK(s.deployment.replica.tp == 4);
  CHECK(s.resolved["model"]["name"] == "moe-test");
  CHECK(s.resolved["deployment"]["hardware"]["name"] == "hw-test");
  CHECK(s.resolved["workload"]["arrival"]["rate_per_s"] == 12.5);
  CHECK(parse_scenario(s.resolved, "echo") == s);

  SECTION("an error inside a referenced file names that file") {
    dep["replica"] = {{"tp", 3}};
    dir.write("parts/dep.json", dep.dump());
    const auto e = input_error_of([&] { load_scenario(path); });
    CHECK_THAT(e.file(), Catch::EndsWith("parts/dep.json"));
    CHECK(e.field() == "replica.tp");
    CHECK(e.value() == "3");
  }
  SECTION("a missing referenced file names the field") {
    std::filesystem::remove(dir.path() / "load.json");
    CHECK_INPUT_ERROR(load_scenario(path), "workload", "\"load.json\"", "cannot open file");
  }
}

TEST_CASE("scenario errors", "[specs][scenario][errors]") {
  json j = scenario_json();
  SECTION("warm-up plus cool-down must leave something to measure") {
    j["measurement"] = {{"warmup_fraction", 0.5}, {"cooldown_fraction", 0.5}};
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "measurement.cooldown_fraction", "0.5", "must be < 1");
  }
  SECTION("the longest request must fit the context") {
    j["workload"]["input_tokens"] = {{"kind", "fixed"}, {"value", 130000}};
    j["workload"]["output_tokens"] = {{"kind", "fixed"}, {"value", 2000}};
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "workload.input_tokens", "130000", "131072");
    j["workload"]["output_tokens"] = {{"kind", "fixed"}, {"value", 1072}};
    CHECK_NOTHROW(parse_scenario(j, "s.json"));  // exactly the limit
  }
  SECTION("uniform and empirical maxima count") {
    j["workload"]["input_tokens"] = {{"kind", "uniform"}, {"min", 1}, {"max", 131000}};
    j["workload"]["output_tokens"] = {{"kind", "empirical"}, {"values", {10, 100, 50}}};
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "workload.input_tokens", "131000", "131100");
    j["workload"]["output_tokens"] = {{"kind", "empirical"}, {"values", {10, 72, 50}}};
    CHECK_NOTHROW(parse_scenario(j, "s.json"));
  }
  SECTION("lognormal without max is not checked, with max it is") {
    j["workload"]["input_tokens"] = {{"kind", "lognormal"}, {"median", 1000}, {"sigma", 2}};
    j["workload"]["output_tokens"] = {{"kind", "fixed"}, {"value", 131000}};
    CHECK_NOTHROW(parse_scenario(j, "s.json"));
    j["workload"]["input_tokens"]["max"] = 100;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "workload.input_tokens", "\"max\":100", "131072");
  }
  SECTION("unknown model preset lists the valid ones") {
    j["model"] = "no-such-model";
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "model", "\"no-such-model\"", "unknown model preset; valid:");
  }
  SECTION("deployment must be an object or a .json path") {
    j["deployment"] = "big-cluster";
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "deployment", "\"big-cluster\"", "path to a .json file");
    j["deployment"] = 3;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "deployment", "3", "expected an object");
  }
  SECTION("errors in embedded parts carry the full path") {
    j["workload"]["arrival"]["rate_per_s"] = -1;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "workload.arrival.rate_per_s", "-1", "> 0");
    j = scenario_json();
    j["deployment"]["replica"]["tp"] = 3;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "deployment.replica.tp", "3", "16 GPUs");
    j = scenario_json();
    j["model"]["attention"]["num_kv_heads"] = 5;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "model.attention.num_kv_heads", "5", "divide");
  }
  SECTION("seed and num_requests") {
    j["seed"] = -1;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "seed", "-1", ">= 0");
    j["seed"] = 1.5;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "seed", "1.5", "expected an integer");
    j = scenario_json();
    j["num_requests"] = 0;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "num_requests", "0", ">= 1");
    j.erase("num_requests");
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "num_requests", "", "missing");
  }
  SECTION("unknown keys, top level and nested") {
    j["requests"] = 5;
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "requests", "5", "num_requests");
    j = scenario_json();
    j["cost"] = {{"price", 2}};
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "cost.price", "2", "usd_per_gpu_hour, pricing, reserved_discount");
  }
  SECTION("cost values") {
    j["cost"] = {{"pricing", "spot"}};
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "cost.pricing", "\"spot\"", "on_demand, reserved");
    j["cost"] = {{"usd_per_gpu_hour", -3}};
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "cost.usd_per_gpu_hour", "-3", ">= 0");
    j["cost"] = {{"reserved_discount", 1}};
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "cost.reserved_discount", "1", "[0, 1)");
  }
}
