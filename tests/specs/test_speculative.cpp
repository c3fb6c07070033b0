// deployment.speculative: parsing, round trip, and the errors that name the field.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

namespace {

json with_speculative(const json& speculative) {
  json j = deployment_json();
  j["speculative"] = speculative;
  return j;
}

json mtp(int n, const json& rates) {
  return {{"method", "mtp"}, {"num_draft_tokens", n}, {"acceptance_rates", rates}};
}

}  // namespace

TEST_CASE("speculative decoding is off when absent or null", "[specs][speculative]") {
  CHECK_FALSE(parse_deployment(deployment_json(), "d.json").speculative);
  CHECK_FALSE(parse_deployment(with_speculative(nullptr), "d.json").speculative);
  CHECK(to_json(parse_deployment(deployment_json(), "d.json"))["speculative"].is_null());
}

TEST_CASE("speculative decoding parses and round-trips", "[specs][speculative][roundtrip]") {
  SECTION("one rate for every position: DeepInfer's next-n 3 at 0.75") {
    const DeploymentSpec d = parse_deployment(with_speculative(mtp(3, {0.75})), "d.json");
    REQUIRE(d.speculative);
    CHECK(d.speculative->method == SpeculativeMethod::mtp);
    CHECK(d.speculative->num_draft_tokens == 3);
    CHECK(d.speculative->acceptance_rates == std::vector<double>{0.75});
    for (int i = 0; i < 3; ++i) CHECK(d.speculative->rate(i) == 0.75);
    const json out = to_json(d);
    CHECK(out["speculative"] == mtp(3, {0.75}));  // written back as given
    CHECK(parse_deployment(out, "echo") == d);
  }
  SECTION("one rate per position, the bounds included") {
    const DeploymentSpec d = parse_deployment(with_speculative(mtp(3, {1, 0.5, 0})), "d.json");
    REQUIRE(d.speculative);
    CHECK(d.speculative->rate(0) == 1.0);
    CHECK(d.speculative->rate(1) == 0.5);
    CHECK(d.speculative->rate(2) == 0.0);
    CHECK(parse_deployment(to_json(d), "echo") == d);
    CHECK_FALSE(d == parse_deployment(with_speculative(mtp(3, {1, 0.5, 0.1})), "d.json"));
  }
  SECTION("in a scenario, with a model that has MTP layers") {
    json j = scenario_json();
    j["model"] = mla_model_json();  // mtp_layers 1
    j["deployment"]["speculative"] = mtp(2, {0.9, 0.6});
    const ScenarioSpec s = parse_scenario(j, "s.json");
    REQUIRE(s.deployment.speculative);
    CHECK(s.resolved["deployment"]["speculative"] == mtp(2, {0.9, 0.6}));
    CHECK(parse_scenario(s.resolved, "echo") == s);
  }
}

TEST_CASE("speculative decoding errors name the field", "[specs][speculative][errors]") {
  SECTION("a rate outside [0, 1], by its index") {
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(mtp(3, {0.9, 1.2, 0.5})), "d.json", "deployment"),
                      "deployment.speculative.acceptance_rates[1]", "1.2", "[0.0, 1.0]");
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(mtp(1, {-0.1})), "d.json"),
                      "speculative.acceptance_rates[0]", "-0.1", "[0.0, 1.0]");
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(mtp(1, {"high"})), "d.json"),
                      "speculative.acceptance_rates[0]", "\"high\"", "expected a number");
  }
  SECTION("as many rates as drafts, or one") {
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(mtp(3, {0.9, 0.6})), "d.json"),
                      "speculative.acceptance_rates", "[0.9,0.6]", "gives 2 rates for num_draft_tokens 3");
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(mtp(3, json::array())), "d.json"),
                      "speculative.acceptance_rates", "[]", "empty");
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(mtp(3, 0.75)), "d.json"), "speculative.acceptance_rates",
                      "0.75", "expected an array of numbers");
  }
  SECTION("num_draft_tokens in [1, 16]") {
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(mtp(0, {0.5})), "d.json"), "speculative.num_draft_tokens",
                      "0", ">= 1");
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(mtp(17, {0.5})), "d.json"), "speculative.num_draft_tokens",
                      "17", "[1, 16]");
  }
  SECTION("1 + num_draft_tokens must fit the token budget") {
    json j = with_speculative(mtp(4, {0.5}));
    j["scheduler"] = {{"max_num_batched_tokens", 4}};
    CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "speculative.num_draft_tokens", "4", "max_num_batched_tokens (4)");
    j["scheduler"]["max_num_batched_tokens"] = 5;
    CHECK_NOTHROW(parse_deployment(j, "d.json"));
  }
  SECTION("only mtp is a method; every key is required; no others") {
    json s = mtp(3, {0.75});
    s["method"] = "draft_model";
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(s), "d.json"), "speculative.method", "\"draft_model\"",
                      "valid: mtp");
    s = mtp(3, {0.75});
    s.erase("num_draft_tokens");
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(s), "d.json"), "speculative.num_draft_tokens", "", "missing");
    s = mtp(3, {0.75});
    s["draft_model"] = "llama-3.1-8b";
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(s), "d.json"), "speculative.draft_model", "llama",
                      "method, num_draft_tokens, acceptance_rates");
    CHECK_INPUT_ERROR(parse_deployment(with_speculative(true), "d.json"), "speculative", "true", "an object or null");
  }
  SECTION("mtp needs a model with MTP layers, named at the deployment's method") {
    json j = scenario_json();  // gqa_model_json has no mtp_layers
    j["deployment"]["speculative"] = mtp(3, {0.75});
    CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "deployment.speculative.method", "\"mtp\"",
                      "model 'dense-test' has no MTP layers");
    j["model"] = mla_model_json();
    CHECK_NOTHROW(parse_scenario(j, "s.json"));
  }
  SECTION("a deployment file names that file") {
    ScratchDir dir;
    dir.write("dep.json", with_speculative(mtp(3, {0.75})).dump());
    json j = scenario_json();
    j["deployment"] = "dep.json";
    const auto e = input_error_of([&] { parse_scenario(j, "s.json", dir.path()); });
    CHECK_THAT(e.file(), Catch::EndsWith("dep.json"));
    CHECK(e.field() == "speculative.method");
  }
}
