// `fleetcast scenario`: a deployment as its serve command starts it, written as a scenario to simulate, sweep or plan.
// The model, layout and scheduler come from the launch the way `validate --bench` reads a measured run's launch
// (traces/server_config.hpp, validation/serving_mapping.hpp: the engine's defaults for the GPU and version where the
// launch says nothing); the workload, seed, request count and cost from another scenario. "Flip a serving flag"
// becomes: change the flag in the command, write the scenario again, simulate both.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "atomic_file.hpp"
#include "bench_input.hpp"
#include "commands.hpp"
#include "fleetcast/specs/error.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/traces/server_config.hpp"
#include "fleetcast/validation/serving_mapping.hpp"
#include "number_arg.hpp"

namespace fleetcast::cli {
namespace {

constexpr const char* kUsage =
    "usage: fleetcast scenario (--server-args CMD | --server-config YAML)... --hardware H [--model M] [--precision P] "
    "[--runtime R] [--tp N] [--pp N] [--dp N] [--ep N] [--max-num-seqs N] [--acceptance-length L] [--nodes N] "
    "[--from SCENARIO] [-o OUT]";

// A scenario's JSON as written: a file, or a shipped preset's by name.
nlohmann::json scenario_json(const std::string& arg) {
  std::ifstream in(arg);
  if (in) {
    try {
      return nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(arg, "", "", std::string("not valid JSON: ") + e.what());
    }
  }
  if (specs::has_preset(specs::PresetKind::scenario, arg)) return specs::preset_json(specs::PresetKind::scenario, arg);
  throw InputError("", "--from", arg, "neither a scenario file nor a shipped scenario (fleetcast presets scenarios)");
}

}  // namespace

int run_scenario(const Args& args) {
  std::string from = "default", out;
  BenchInput launch;  // its --bench is not taken here
  int nodes = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw InputError("", a, "", std::string("needs a value; ") + kUsage);
      return args[++i];
    };
    if (a != "--bench" && a != "--perf-metrics" && launch.take(args, i)) continue;
    if (a == "--nodes") {
      nodes = whole_number_arg(a, value(), 1);
    } else if (a == "--from") {
      from = value();
    } else if (a == "-o" || a == "--output") {
      out = value();
    } else {
      throw InputError("", "scenario", a, kUsage);
    }
  }
  if (!launch.has_launch()) {
    throw InputError("", "scenario", "",
                     std::string("give the launch: --server-args and/or --server-config; ") + kUsage);
  }
  if (launch.given.hardware.empty()) {
    throw InputError("", "--hardware", "", std::string("which GPU it runs on; ") + kUsage);
  }
  nlohmann::json scenario = scenario_json(from);
  const traces::BenchDeployment given = launch.deployment();
  if (given.model.empty()) {
    throw InputError(given.server.source, "model", "", "the launch names no model: give --model");
  }
  // The launch as a measured run with no measurement: what the mapping reads to build the deployment. A layout the
  // launch leaves out is the engines' default, one GPU.
  traces::MeasuredServingRun run;
  run.id = "launch";
  run.backend = given.runtime;
  run.model_path = given.model;
  run.system = given.hardware;
  run.precision = given.precision;
  run.mode = "agg";
  run.isl = 1024;  // the mapping's closed-loop workload, replaced below
  run.osl = 128;
  run.concurrency = 1;
  run.num_requests = 1;  // a run from a benchmark file: the engine's own batch cap where the launch gives none
  run.agg.tp = given.tp > 0 ? given.tp : 1;
  run.agg.pp = given.pp;
  run.agg.attention_dp = given.dp;
  run.agg.moe_ep = given.ep;
  run.agg.batch_size = given.max_num_seqs;
  run.spec_accept_length = given.accept_length;
  traces::apply_server_settings(given.server, run);
  const auto mapped = validation::map_serving_run(run);
  if (const auto* u = std::get_if<validation::Unmapped>(&mapped)) {
    throw InputError(given.server.source, "", "", "cannot be modelled: " + u->reason);
  }
  const validation::MappedRun& m = std::get<validation::MappedRun>(mapped);

  nlohmann::json deployment = m.scenario.at("deployment");
  deployment["name"] = given.runtime + " as launched (" + given.server.source + ")";
  if (nodes > 0) deployment["nodes"] = nodes;
  const nlohmann::json& base = scenario.contains("deployment") && scenario["deployment"].is_object()
                                   ? scenario["deployment"]
                                   : nlohmann::json::object();
  if (base.contains("router") && !deployment.contains("router")) deployment["router"] = base["router"];
  scenario["model"] = m.scenario.at("model");
  scenario["deployment"] = deployment;
  const nlohmann::json& model = m.scenario.at("model");
  scenario["name"] = (model.is_string() ? model.get<std::string>() : model.value("name", given.model)) + " on " +
                     given.hardware + " under " + given.runtime + " as launched, with the workload of " + from;
  // Parsed before it is written: a launch the specs refuse (a budget below the workload's longest prompt with whole
  // prompts, say) fails here with the field, not in the simulation.
  specs::parse_scenario(scenario, "scenario from " + given.server.source);

  const std::string text = scenario.dump(2) + "\n";
  if (out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    write_file_atomically(out, text);
  }
  std::fprintf(stderr, "%s\n", (m.notes.empty() ? run.notes : m.notes).c_str());
  return 0;
}

}  // namespace fleetcast::cli
