// Shared prompt prefixes in the workload and prefix caching in the deployment: parsing, the round trip, the
// cross-check with the KV block size, and the errors that name the field.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

namespace {

json with_prefix(const json& prefix) {
  json w = workload_json();
  w["prefix"] = prefix;
  return w;
}

json two_classes_with_prefixes() {
  json a = workload_json();
  a.erase("name");
  a["name"] = "chat";
  a["prefix"] = {{"groups", 8}, {"tokens", 1024}};
  json b = a;
  b["name"] = "agent";
  b["prefix"] = {{"groups", 3}, {"tokens", 2000}, {"popularity", "zipf"}, {"zipf_s", 1.2}};
  return json{{"name", "mix"}, {"prefix_block_tokens", 256}, {"classes", {a, b}}};
}

}  // namespace

TEST_CASE("a class's shared prefix parses with its defaults and round-trips", "[specs][workload][prefix]") {
  const WorkloadSpec w = parse_workload(with_prefix({{"groups", 4}, {"tokens", 1536}}), "w.json");
  REQUIRE(w.classes.size() == 1);
  REQUIRE(w.classes[0].prefix);
  CHECK(w.classes[0].prefix->groups == 4);
  CHECK(w.classes[0].prefix->tokens == 1536);
  CHECK(w.classes[0].prefix->popularity == PrefixPopularity::uniform);
  CHECK(w.prefix_block_tokens == 512);  // Mooncake's hash_ids blocks
  CHECK(w.has_prefixes());
  const json out = to_json(w);
  CHECK(out["prefix"] == json{{"groups", 4}, {"tokens", 1536}, {"popularity", "uniform"}});
  CHECK(out["prefix_block_tokens"] == 512);
  CHECK(parse_workload(out, "echo") == w);

  const WorkloadSpec mix = parse_workload(two_classes_with_prefixes(), "w.json");
  CHECK(mix.prefix_block_tokens == 256);
  CHECK(mix.classes[1].prefix->popularity == PrefixPopularity::zipf);
  CHECK(mix.classes[1].prefix->zipf_s == 1.2);
  CHECK(parse_workload(to_json(mix), "echo") == mix);
}

TEST_CASE("a workload without prefixes echoes as before", "[specs][workload][prefix]") {
  const WorkloadSpec w = parse_workload(workload_json(), "w.json");
  CHECK_FALSE(w.classes[0].prefix);
  CHECK_FALSE(w.has_prefixes());
  CHECK_FALSE(to_json(w).contains("prefix_block_tokens"));
  CHECK_FALSE(to_json(w).contains("prefix"));
}

TEST_CASE("prefix errors name the field, the value and what is valid", "[specs][workload][prefix][errors]") {
  CHECK_INPUT_ERROR(parse_workload(with_prefix({{"groups", 0}, {"tokens", 1024}}), "w.json"), "prefix.groups", "0",
                    ">= 1");
  CHECK_INPUT_ERROR(parse_workload(with_prefix({{"groups", 2}}), "w.json"), "prefix.tokens", "", "missing");
  CHECK_INPUT_ERROR(parse_workload(with_prefix({{"groups", 2}, {"tokens", 511}}), "w.json"), "prefix.tokens", "511",
                    "must be >= prefix_block_tokens (512)");
  CHECK_INPUT_ERROR(parse_workload(with_prefix({{"groups", 2}, {"tokens", 1024}, {"popularity", "pareto"}}), "w.json"),
                    "prefix.popularity", "pareto", "valid: uniform, zipf");
  CHECK_INPUT_ERROR(parse_workload(with_prefix({{"groups", 2}, {"tokens", 1024}, {"zipf_s", 1.0}}), "w.json"),
                    "prefix.zipf_s", "1", "only to popularity \"zipf\"");
  CHECK_INPUT_ERROR(
      parse_workload(with_prefix({{"groups", 2}, {"tokens", 1024}, {"popularity", "zipf"}, {"zipf_s", 0}}), "w.json"),
      "prefix.zipf_s", "0", "> 0");
  CHECK_INPUT_ERROR(parse_workload(with_prefix({{"groups", 2}, {"tokens", 1024}, {"share", 0.5}}), "w.json"),
                    "prefix.share", "0.5", "valid");
  json w = with_prefix({{"groups", 2}, {"tokens", 1024}});
  w["prefix_block_tokens"] = 0;
  CHECK_INPUT_ERROR(parse_workload(w, "w.json"), "prefix_block_tokens", "0", ">= 1");
  json mix = two_classes_with_prefixes();
  mix["classes"][1]["prefix"]["groups"] = -1;
  CHECK_INPUT_ERROR(parse_workload(mix, "w.json"), "classes[1].prefix.groups", "-1", ">= 1");
  mix = two_classes_with_prefixes();
  mix["prefix"] = {{"groups", 1}, {"tokens", 1024}};
  CHECK_INPUT_ERROR(parse_workload(mix, "w.json"), "prefix", "", "not both");
}

TEST_CASE("prefix caching is on by default (vLLM v1) and round-trips off", "[specs][deployment][prefix]") {
  const DeploymentSpec on = parse_deployment(deployment_json(), "d.json");
  CHECK(on.scheduler.prefix_caching);
  json j = deployment_json();
  j["scheduler"] = {{"prefix_caching", false}};
  const DeploymentSpec off = parse_deployment(j, "d.json");
  CHECK_FALSE(off.scheduler.prefix_caching);
  CHECK(to_json(off)["scheduler"]["prefix_caching"] == false);
  CHECK(parse_deployment(to_json(off), "echo") == off);
  j["scheduler"] = {{"prefix_caching", "yes"}};
  CHECK_INPUT_ERROR(parse_deployment(j, "d.json"), "scheduler.prefix_caching", "yes", "boolean");
}

TEST_CASE("with prefix caching on, a prefix block must be a whole number of KV blocks", "[specs][scenario][prefix]") {
  json s = scenario_json();
  s["workload"] = with_prefix({{"groups", 2}, {"tokens", 1000}});
  s["workload"]["prefix_block_tokens"] = 500;
  CHECK_INPUT_ERROR(parse_scenario(s, "s.json"), "workload.prefix_block_tokens", "500",
                    "multiple of deployment.scheduler.kv_block_tokens (16)");
  s["deployment"]["scheduler"] = {{"prefix_caching", false}};
  CHECK(parse_scenario(s, "s.json").workload.prefix_block_tokens == 500);  // no cache, no constraint
  s = scenario_json();
  s["deployment"]["scheduler"] = {{"kv_block_tokens", 24}};
  CHECK_INPUT_ERROR(parse_scenario(s, "s.json"), "deployment.scheduler.kv_block_tokens", "24",
                    "or set scheduler.prefix_caching false");
  s["workload"]["prefix_block_tokens"] = 480;
  CHECK(parse_scenario(s, "s.json").workload.prefix_block_tokens == 480);
}

TEST_CASE("a prefix longer than a class's inputs counts as raised inputs against the context",
          "[specs][scenario][prefix]") {
  json s = scenario_json();  // the model's context: 131072 tokens; outputs of 256
  s["workload"] = with_prefix({{"groups", 2}, {"tokens", 131072 - 256}});
  CHECK_INPUT_ERROR(parse_scenario(s, "s.json"), "workload.input_tokens", "uniform",
                    "the longest request (input max 130817 + output max 256");
}
