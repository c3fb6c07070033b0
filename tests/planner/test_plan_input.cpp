// The plan input is read strictly: every error names the file, the field path and the value.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/plan.hpp"

using namespace fleetcast;

namespace {

nlohmann::json toy() {
  return nlohmann::json::parse(R"({
    "name": "t",
    "model": "llama-3.1-8b",
    "workload": {"arrival": {"kind": "poisson", "rate_per_s": 2.0},
                 "input_tokens": {"kind": "fixed", "value": 500},
                 "output_tokens": {"kind": "fixed", "value": 50},
                 "slo": {"tpot_ms": 40}},
    "hardware": ["h100"],
    "max_gpus": 2
  })");
}

// The InputError parse_plan throws for `j`; fails the test when it throws none.
InputError error_of(const nlohmann::json& j) {
  try {
    specs::parse_plan(j, "plan.json");
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError");
  throw;
}

}  // namespace

TEST_CASE("a valid plan reads with the search-space defaults and echoes its model expanded", "[planner][plan]") {
  const specs::PlanSpec p = specs::parse_plan(toy(), "plan.json");
  CHECK(p.hardware == std::vector<std::string>{"h100"});
  CHECK(p.runtimes == std::vector<std::string>{"vllm"});  // vLLM unless told
  CHECK(p.max_gpus == 2);
  CHECK(p.budget_usd_per_hour == 0.0);
  CHECK(p.search.tp == std::vector<int>{1, 2, 4, 8});
  CHECK(p.workload_spec.classes.at(0).slo.tpot_ms == 40.0);
  CHECK(p.resolved["model"].is_object());
  CHECK(p.resolved["model"]["name"] == p.model_spec.name);
}

TEST_CASE("a plan's runtime is one engine or a list of them, in the order given", "[planner][plan]") {
  nlohmann::json j = toy();
  j["runtime"] = "sglang";
  CHECK(specs::parse_plan(j, "plan.json").runtimes == std::vector<std::string>{"sglang"});
  j["runtime"] = {"trtllm", "vllm", "sglang"};
  CHECK(specs::parse_plan(j, "plan.json").runtimes == std::vector<std::string>{"trtllm", "vllm", "sglang"});
}

TEST_CASE("plan input errors name the file, the field and the value", "[planner][plan]") {
  SECTION("an unknown key") {
    nlohmann::json j = toy();
    j["serach"] = nlohmann::json::object();
    const InputError e = error_of(j);
    CHECK(e.file() == "plan.json");
    CHECK(e.field() == "serach");
  }
  SECTION("an unknown key inside search") {
    nlohmann::json j = toy();
    j["search"] = {{"tensor_parallel", {1, 2}}};
    CHECK(error_of(j).field() == "search.tensor_parallel");
  }
  SECTION("a load instead of a rate: relative to the fleet being searched") {
    nlohmann::json j = toy();
    j["workload"]["arrival"] = {{"kind", "poisson"}, {"load", 0.5}};
    const InputError e = error_of(j);
    CHECK(e.field() == "workload.arrival");
    CHECK(e.problem().find("rate_per_s") != std::string::npos);
  }
  SECTION("no SLO to plan for") {
    nlohmann::json j = toy();
    j["workload"].erase("slo");
    CHECK(error_of(j).field() == "workload");
  }
  SECTION("neither a budget nor a GPU limit") {
    nlohmann::json j = toy();
    j.erase("max_gpus");
    CHECK(error_of(j).field() == "budget_usd_per_hour");
  }
  SECTION("an unknown hardware preset, by its position") {
    nlohmann::json j = toy();
    j["hardware"] = {"h100", "h900"};
    const InputError e = error_of(j);
    CHECK(e.field() == "hardware[1]");
    CHECK(e.value().find("h900") != std::string::npos);
  }
  SECTION("a malformed prefill:decode ratio") {
    nlohmann::json j = toy();
    j["search"] = {{"prefill_decode_ratios", {{1, 2}, {0, 1}}}};
    const InputError e = error_of(j);
    CHECK(e.field() == "search.prefill_decode_ratios[1]");
    CHECK(e.value() == "[0,1]");
  }
  SECTION("a tp list with a zero") {
    nlohmann::json j = toy();
    j["search"] = {{"tp", {1, 0}}};
    CHECK(error_of(j).field() == "search.tp[1]");
  }
  SECTION("an unknown runtime, named where the plan gives it") {
    nlohmann::json j = toy();
    j["runtime"] = "vllm2";
    const InputError e = error_of(j);
    CHECK(e.field() == "runtime");
    CHECK(e.value().find("vllm2") != std::string::npos);
  }
  SECTION("an unknown runtime in a list, named by its position") {
    nlohmann::json j = toy();
    j["runtime"] = {"vllm", "tensorrt"};
    const InputError e = error_of(j);
    CHECK(e.field() == "runtime[1]");
    CHECK(e.value().find("tensorrt") != std::string::npos);
  }
  SECTION("a runtime given twice") {
    nlohmann::json j = toy();
    j["runtime"] = {"sglang", "vllm", "sglang"};
    const InputError e = error_of(j);
    CHECK(e.field() == "runtime[2]");
    CHECK(e.problem() == "given twice");
  }
  SECTION("an empty runtime list") {
    nlohmann::json j = toy();
    j["runtime"] = nlohmann::json::array();
    CHECK(error_of(j).field() == "runtime");
  }
  SECTION("an engine that runs on none of the plan's GPUs") {
    nlohmann::json j = toy();
    j["runtime"] = {"vllm", "atom"};  // ATOM is AMD's; the plan lists an H100 only
    const InputError e = error_of(j);
    CHECK(e.field() == "runtime[1]");
    CHECK(e.problem().find("AMD GPUs only") != std::string::npos);
    j["hardware"] = {"h100", "mi355x"};  // one GPU it runs on is enough
    CHECK(specs::parse_plan(j, "plan.json").runtimes == std::vector<std::string>{"vllm", "atom"});
  }
  SECTION("a request longer than the model's context") {
    nlohmann::json j = toy();
    j["workload"]["input_tokens"] = {{"kind", "fixed"}, {"value", 200000}};
    CHECK(error_of(j).field() == "workload.input_tokens");
  }
}

// The plans shipped as examples (README, docs/PLANNER.md) read under today's rules.
TEST_CASE("every shipped example plan reads", "[planner][plan]") {
  int plans = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FLEETCAST_PRESET_PLANS)) {
    if (entry.path().extension() != ".json") continue;
    CAPTURE(entry.path().string());
    const specs::PlanSpec p = specs::load_plan(entry.path());
    CHECK_FALSE(p.runtimes.empty());
    ++plans;
  }
  CHECK(plans >= 3);
}
