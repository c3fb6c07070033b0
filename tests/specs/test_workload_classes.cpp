// The workload as a mix of request classes: parsing, SLOs, the round trip, and the errors that name the field.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

namespace {

json chat_class() {
  return json::parse(R"({"name": "chat", "arrival": {"kind": "poisson", "rate_per_s": 4},
    "input_tokens": {"kind": "uniform", "min": 50, "max": 500}, "output_tokens": {"kind": "fixed", "value": 100},
    "slo": {"ttft_ms": 500, "tpot_ms": 50}})");
}

json document_class() {
  return json::parse(R"({"name": "document", "arrival": {"kind": "gamma", "load": 0.25, "cv": 2},
    "input_tokens": {"kind": "fixed", "value": 20000}, "output_tokens": {"kind": "fixed", "value": 300},
    "slo": {"ttft_ms": 8000}})");
}

json agent_class() {
  return json::parse(R"({"name": "agent", "arrival": {"kind": "closed_loop", "clients": 3, "think_time_s": 2},
    "input_tokens": {"kind": "fixed", "value": 1000}, "output_tokens": {"kind": "fixed", "value": 50}})");
}

json mix_json() { return json{{"name", "mix"}, {"classes", {chat_class(), document_class(), agent_class()}}}; }

}  // namespace

TEST_CASE("a mix of classes parses each class with its arrival, lengths and SLOs", "[specs][workload][classes]") {
  const WorkloadSpec w = parse_workload(mix_json(), "w.json");
  CHECK(w.name == "mix");
  REQUIRE(w.classes.size() == 3);
  CHECK(w.classes[0].name == "chat");
  CHECK(w.classes[0].arrival.rate_per_s == 4.0);
  CHECK(w.classes[0].input_tokens.max == 500);
  CHECK(w.classes[0].slo.ttft_ms == 500.0);
  CHECK(w.classes[0].slo.tpot_ms == 50.0);
  CHECK(w.classes[1].arrival.kind == ArrivalKind::gamma);
  CHECK(w.classes[1].arrival.load == 0.25);
  CHECK(w.classes[1].slo.ttft_ms == 8000.0);
  CHECK(w.classes[1].slo.tpot_ms == 0.0);  // not given: not checked
  CHECK(w.classes[2].arrival.clients == 3);
  CHECK_FALSE(w.classes[2].slo.any());
  CHECK(w.has_open_loop());
  CHECK(w.has_closed_loop());
  CHECK_FALSE(w.is_single_class_form());
}

TEST_CASE("a mix round-trips, and the single-class form echoes as written", "[specs][workload][classes][roundtrip]") {
  const WorkloadSpec w = parse_workload(mix_json(), "w.json");
  const json echoed = to_json(w);
  CHECK(echoed == mix_json());
  CHECK(parse_workload(echoed, "echo") == w);

  // One class named after the workload is the single-class form, whichever way it was written.
  json one = {{"name", "chat"}, {"classes", {chat_class()}}};
  const WorkloadSpec single = parse_workload(one, "w.json");
  CHECK(single.is_single_class_form());
  const json single_echo = to_json(single);
  CHECK_FALSE(single_echo.contains("classes"));
  CHECK(single_echo["slo"] == chat_class()["slo"]);  // the single-class form may carry an SLO too
  CHECK(parse_workload(single_echo, "echo") == single);

  // One class named otherwise keeps its name through the classes form.
  one["name"] = "traffic";
  const WorkloadSpec named = parse_workload(one, "w.json");
  CHECK(to_json(named).contains("classes"));
  CHECK(parse_workload(to_json(named), "echo") == named);

  // An empty SLO object is no SLO.
  json empty_slo = chat_class();
  empty_slo["slo"] = json::object();
  const WorkloadSpec no_slo = parse_workload(json{{"classes", {empty_slo}}}, "w.json");
  CHECK_FALSE(no_slo.classes[0].slo.any());
  CHECK(parse_workload(to_json(no_slo), "echo") == no_slo);
}

TEST_CASE("a scenario checks the context of every class", "[specs][workload][classes]") {
  json j = scenario_json();
  j["workload"] = mix_json();
  CHECK_NOTHROW(parse_scenario(j, "s.json"));
  j["workload"]["classes"][1]["input_tokens"]["value"] = 131000;  // + 300 output > 131,072
  CHECK_INPUT_ERROR(parse_scenario(j, "s.json"), "workload.classes[1].input_tokens", "131000", "131300");
  const ScenarioSpec ok = parse_scenario(scenario_json(), "s.json");
  j["workload"]["classes"][1]["input_tokens"]["value"] = 1000;
  const ScenarioSpec mixed = parse_scenario(j, "s.json");
  CHECK(mixed.resolved["workload"] == to_json(mixed.workload));
  CHECK(parse_scenario(mixed.resolved, "echo") == mixed);
  CHECK(ok.resolved["workload"] == workload_json());
}

TEST_CASE("class errors name the field", "[specs][workload][classes][errors]") {
  json j = mix_json();
  SECTION("classes and single-class keys together") {
    j["arrival"] = {{"kind", "poisson"}, {"rate_per_s", 1}};
    CHECK_INPUT_ERROR(parse_workload(j, "s.json", "workload"), "workload.arrival", "poisson", "not both");
    j.erase("arrival");
    j["slo"] = {{"ttft_ms", 100}};
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "slo", "100", "not both");
  }
  SECTION("neither classes nor arrival") {
    CHECK_INPUT_ERROR(parse_workload(json{{"name", "x"}}, "w.json"), "arrival", "", "or classes");
  }
  SECTION("classes must be a non-empty list of objects") {
    j["classes"] = json::array();
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes", "[]", "empty");
    j["classes"] = {chat_class(), 3};
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[1]", "3", "expected an object");
    j["classes"] = chat_class();
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes", "chat", "expected an array");
  }
  SECTION("names: required, non-empty, unique") {
    j["classes"][1]["name"] = "chat";
    CHECK_INPUT_ERROR(parse_workload(j, "s.json", "workload"), "workload.classes[1].name", "\"chat\"", "unique");
    j["classes"][1]["name"] = "";
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[1].name", "\"\"", "empty");
    j["classes"][1].erase("name");
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[1].name", "", "missing");
  }
  SECTION("SLO values are > 0 and its keys are known") {
    j["classes"][0]["slo"]["ttft_ms"] = 0;
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[0].slo.ttft_ms", "0", "> 0");
    j["classes"][0]["slo"] = {{"tpot_ms", -5}};
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[0].slo.tpot_ms", "-5", "> 0");
    j["classes"][0]["slo"] = {{"e2e_ms", 5}};
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[0].slo.e2e_ms", "5", "ttft_ms, tpot_ms");
    j["classes"][0]["slo"] = 5;
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[0].slo", "5", "expected an object");
  }
  SECTION("a class's own fields are checked as in the single-class form") {
    j["classes"][2]["arrival"]["rate_per_s"] = 3;
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[2].arrival.rate_per_s", "3", "closed_loop");
    j = mix_json();
    j["classes"][0]["input_tokens"] = {{"kind", "uniform"}, {"min", 9}, {"max", 2}};
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[0].input_tokens.min", "9", "max (2)");
    j = mix_json();
    j["classes"][0]["priority"] = 1;
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[0].priority", "1", "valid keys: name, arrival");
    j = mix_json();
    j["classes"][1].erase("output_tokens");
    CHECK_INPUT_ERROR(parse_workload(j, "w.json"), "classes[1].output_tokens", "", "missing");
  }
}
