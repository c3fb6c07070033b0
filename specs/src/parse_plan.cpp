// JSON -> PlanSpec: strict, like the scenario parser; the model and workload are read by their own parsers and a
// probe scenario checks them together (the longest request must fit the model's context).

#include <algorithm>
#include <optional>

#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/plan.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/specs/vendor.hpp"
#include "json_reader.hpp"
#include "spec_ref.hpp"

namespace fleetcast::specs {

using detail::JsonReader;

namespace {

std::vector<int> optional_ints(JsonReader& r, const std::string& key, std::vector<int> fallback, int min_value) {
  if (!r.has(key)) return fallback;
  return r.int_array(key, min_value);
}

// A non-empty list of true/false without repeats.
std::vector<bool> optional_bools(JsonReader& r, const std::string& key, std::vector<bool> fallback) {
  const nlohmann::json* v = r.raw(key);
  if (v == nullptr || v->is_null()) return fallback;
  const bool ok = v->is_array() && !v->empty() && v->size() <= 2 &&
                  std::all_of(v->begin(), v->end(), [](const nlohmann::json& b) { return b.is_boolean(); }) &&
                  (v->size() == 1 || (*v)[0] != (*v)[1]);
  r.check(ok, key, "expected [false], [true] or [false, true]");
  std::vector<bool> out;
  for (const auto& b : *v) out.push_back(b.get<bool>());
  return out;
}

// [[P, D], ...]: replicas of the prefill pool : replicas of the decode pool, each >= 1.
std::vector<std::pair<int, int>> optional_ratios(JsonReader& r, const std::string& key,
                                                 std::vector<std::pair<int, int>> fallback) {
  const nlohmann::json* v = r.raw(key);
  if (v == nullptr || v->is_null()) return fallback;
  r.check(v->is_array() && !v->empty(), key, "expected a non-empty list of [prefill, decode] pairs such as [[1, 2]]");
  std::vector<std::pair<int, int>> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& p = (*v)[i];
    const bool ok = p.is_array() && p.size() == 2 && p[0].is_number_integer() && p[1].is_number_integer() &&
                    p[0].get<int>() >= 1 && p[1].get<int>() >= 1;
    if (!ok) {
      throw InputError(r.file(), r.path(key + "[" + std::to_string(i) + "]"), detail::value_text(p),
                       "expected [prefill replicas, decode replicas], whole numbers >= 1, such as [1, 2]");
    }
    out.emplace_back(p[0].get<int>(), p[1].get<int>());
  }
  return out;
}

// `runtime`: one engine's name or a non-empty list of them without repeats; each name's field ("runtime" or
// "runtime[i]") beside it, for the messages of the checks that follow. Whether a name is an engine at all is the
// deployment parser's rule (the probe scenario below).
std::vector<std::pair<std::string, std::string>> runtimes_with_fields(JsonReader& r) {
  const nlohmann::json* v = r.raw("runtime");
  if (v == nullptr || v->is_null()) return {{"vllm", "runtime"}};
  if (v->is_string()) return {{v->get<std::string>(), "runtime"}};
  r.check(v->is_array() && !v->empty(), "runtime",
          "expected an engine's name or a non-empty list of them, such as \"vllm\" or [\"vllm\", \"sglang\"]");
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string field = r.path("runtime[" + std::to_string(i) + "]");
    const nlohmann::json& name = (*v)[i];
    if (!name.is_string()) throw InputError(r.file(), field, detail::value_text(name), "expected an engine's name");
    for (const auto& earlier : out)
      if (earlier.first == name.get<std::string>())
        throw InputError(r.file(), field, detail::value_text(name), "given twice");
    out.emplace_back(name.get<std::string>(), field);
  }
  return out;
}

PlanSearchSpace parse_search(JsonReader r) {
  PlanSearchSpace s;
  s.gpu_counts = optional_ints(r, "gpu_counts", s.gpu_counts, 1);
  s.tp = optional_ints(r, "tp", s.tp, 1);
  s.ep = optional_ints(r, "ep", s.ep, 1);
  s.dp = optional_ints(r, "dp", s.dp, 1);
  s.disaggregated = optional_bools(r, "disaggregated", s.disaggregated);
  s.prefill_decode_ratios = optional_ratios(r, "prefill_decode_ratios", s.prefill_decode_ratios);
  s.max_num_seqs = optional_ints(r, "max_num_seqs", s.max_num_seqs, 1);
  s.max_num_batched_tokens = optional_ints(r, "max_num_batched_tokens", s.max_num_batched_tokens, 1);
  s.mtp = optional_bools(r, "mtp", s.mtp);
  s.mtp_draft_tokens = r.optional_at_least("mtp_draft_tokens", s.mtp_draft_tokens, 1);
  s.mtp_acceptance = r.optional<double>("mtp_acceptance", s.mtp_acceptance);
  r.check(s.mtp_acceptance >= 0.0 && s.mtp_acceptance <= 1.0, "mtp_acceptance", "must be in [0, 1]");
  r.finish();
  return s;
}

PlanSimulation parse_simulation(JsonReader r) {
  PlanSimulation s;
  s.num_requests = r.optional_at_least<std::int64_t>("num_requests", s.num_requests, 10);
  s.seed = r.optional<std::uint64_t>("seed", s.seed);
  s.warmup_fraction = r.optional_at_least("warmup_fraction", s.warmup_fraction, 0.0);
  s.cooldown_fraction = r.optional_at_least("cooldown_fraction", s.cooldown_fraction, 0.0);
  r.check(s.warmup_fraction + s.cooldown_fraction < 1.0, "cooldown_fraction",
          "warmup_fraction + cooldown_fraction must be < 1");
  r.finish();
  return s;
}

// Every class at a fixed open-loop rate or a recorded trace; at least one SLO to plan for.
void check_plan_workload(const WorkloadSpec& w, const nlohmann::json& written, const std::string& file) {
  const bool classes_form = written.contains("classes");
  bool any_slo = false;
  for (std::size_t i = 0; i < w.classes.size(); ++i) {
    const RequestClass& c = w.classes[i];
    const std::string at = classes_form ? "workload.classes[" + std::to_string(i) + "].arrival" : "workload.arrival";
    const bool fixed_rate = c.arrival.kind == ArrivalKind::trace || c.arrival.rate_per_s > 0.0;  // a trace: its own
    if (c.arrival.kind == ArrivalKind::closed_loop || !fixed_rate) {
      const nlohmann::json& a = classes_form ? written["classes"][i]["arrival"] : written["arrival"];
      throw InputError(
          file, at, detail::value_text(a),
          "a plan needs an open-loop arrival (poisson or gamma with rate_per_s > 0, or a trace): a `load` or "
          "closed-loop clients depend on the fleet, which is what the plan searches");
    }
    any_slo = any_slo || c.slo.any();
  }
  if (!any_slo) {
    throw InputError(file, "workload", "",
                     "no class sets an SLO (slo.ttft_ms or slo.tpot_ms): the plan needs objectives to meet");
  }
}

}  // namespace

PlanSpec parse_plan(const nlohmann::json& j, const std::string& file, const std::filesystem::path& base_dir) {
  JsonReader r(j, file, "");
  PlanSpec p;
  p.name = r.require<std::string>("name");
  const detail::SpecRef model = detail::resolve_spec_ref(r, "model", PresetKind::model, base_dir);
  p.model_spec = parse_model(model.json, model.file, model.prefix);
  p.model = to_json(p.model_spec);
  const detail::SpecRef workload = detail::resolve_spec_ref(r, "workload", std::nullopt, base_dir);
  p.workload_spec = parse_workload(workload.json, workload.file, workload.prefix);
  p.workload = to_json(p.workload_spec);
  check_plan_workload(p.workload_spec, workload.json, workload.file);

  const nlohmann::json* hw = r.raw("hardware");
  if (hw == nullptr) r.missing("hardware");
  r.check(hw->is_array() && !hw->empty(), "hardware", "expected a non-empty list of hardware preset names");
  for (std::size_t i = 0; i < hw->size(); ++i) {
    const std::string field = "hardware[" + std::to_string(i) + "]";
    const nlohmann::json& h = (*hw)[i];
    if (!h.is_string()) throw InputError(file, field, detail::value_text(h), "expected a hardware preset name");
    preset_json(PresetKind::hardware, h.get<std::string>(), file, field);  // throws naming the valid presets
    if (std::find(p.hardware.begin(), p.hardware.end(), h.get<std::string>()) != p.hardware.end())
      throw InputError(file, field, detail::value_text(h), "given twice");
    p.hardware.push_back(h.get<std::string>());
  }
  const std::vector<std::pair<std::string, std::string>> runtimes = runtimes_with_fields(r);
  p.budget_usd_per_hour = r.optional_at_least("budget_usd_per_hour", 0.0, 0.0);
  p.max_gpus = r.optional_at_least("max_gpus", 0, 0);
  r.check(p.budget_usd_per_hour > 0.0 || p.max_gpus > 0, "budget_usd_per_hour",
          "give budget_usd_per_hour > 0 or max_gpus > 0 (or both): the most the fleet may cost or hold");
  p.capacity_slack = r.optional_at_least("capacity_slack", p.capacity_slack, 0.0);
  if (auto s = r.optional_object("search")) p.search = parse_search(std::move(*s));
  if (auto s = r.optional_object("simulation")) p.simulation = parse_simulation(std::move(*s));
  r.finish();

  // A probe scenario on one GPU per engine, on the first hardware it runs on, checks the engine's name and that the
  // longest request fits the model's context, with the scenario parser's own rules and messages.
  p.runtimes.clear();
  for (const auto& [runtime, field] : runtimes) {
    const auto runs_on = std::find_if(p.hardware.begin(), p.hardware.end(), [&](const std::string& name) {
      return runtime_vendor_mismatch(runtime, hardware_preset(name).arch).empty();
    });
    if (runs_on == p.hardware.end()) {
      throw InputError(file, field, detail::value_text(nlohmann::json(runtime)),
                       "runs on none of the plan's hardware: " +
                           runtime_vendor_mismatch(runtime, hardware_preset(p.hardware.front()).arch));
    }
    const nlohmann::json probe = {
        {"name", "plan probe"},
        {"model", p.model},
        {"deployment",
         {{"name", "probe"}, {"hardware", *runs_on}, {"nodes", 1}, {"gpus_per_node", 1}, {"runtime", runtime}}},
        {"workload", p.workload},
        {"num_requests", p.simulation.num_requests}};
    try {
      parse_scenario(probe, file, base_dir);
    } catch (const InputError& e) {
      throw InputError(file, e.field() == "deployment.runtime" ? field : e.field(), e.value(), e.problem());
    }
    p.runtimes.push_back(runtime);
  }
  p.resolved = j;
  p.resolved["model"] = p.model;
  p.resolved["workload"] = p.workload;
  return p;
}

PlanSpec load_plan(const std::filesystem::path& path) {
  return parse_plan(read_json_file(path), path.string(), path.parent_path());
}

}  // namespace fleetcast::specs
