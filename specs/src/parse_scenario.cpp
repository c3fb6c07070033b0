// JSON -> ScenarioSpec: resolves presets and files, applies defaults, cross-checks the parts and records
// the resolved scenario.

#include <algorithm>
#include <optional>

#include "fleetcast/specs/load.hpp"
#include "json_reader.hpp"
#include "spec_ref.hpp"

namespace fleetcast::specs {

using detail::JsonReader;

namespace {

MeasurementSpec parse_measurement(JsonReader r) {
  MeasurementSpec m;
  m.warmup_fraction = r.optional_at_least("warmup_fraction", m.warmup_fraction, 0.0);
  m.cooldown_fraction = r.optional_at_least("cooldown_fraction", m.cooldown_fraction, 0.0);
  r.check(m.warmup_fraction + m.cooldown_fraction < 1.0, "cooldown_fraction",
          "warmup_fraction (" + nlohmann::json(m.warmup_fraction).dump() + ") + cooldown_fraction (" +
              nlohmann::json(m.cooldown_fraction).dump() + ") must be < 1");
  m.sample_interval_s = r.optional_positive("sample_interval_s", m.sample_interval_s);
  r.finish();
  return m;
}

CostSpec parse_cost(JsonReader r, const HardwareSpec& hw) {
  CostSpec c;
  c.usd_per_gpu_hour = r.optional_at_least("usd_per_gpu_hour", 0.0, 0.0);
  if (c.usd_per_gpu_hour == 0.0) c.usd_per_gpu_hour = hw.price_usd_per_gpu_hour;  // 0: the hardware's price
  c.pricing = r.optional_enum("pricing", PricingKind::on_demand, detail::kPricingNames);
  c.reserved_discount = r.optional_at_least("reserved_discount", 0.0, 0.0);
  r.check(c.reserved_discount < 1.0, "reserved_discount", "must be in [0, 1)");
  if (auto o = r.optional_object("owned")) {
    OwnedCostSpec& w = c.owned.emplace();
    w.gpu_purchase_usd = o->require_at_least("gpu_purchase_usd", 0.0);
    w.server_usd_per_gpu = o->optional_at_least("server_usd_per_gpu", 0.0, 0.0);
    w.network_usd_per_port = o->optional_at_least("network_usd_per_port", 0.0, 0.0);
    w.network_ports_per_gpu = o->optional_at_least("network_ports_per_gpu", 1.0, 0.0);
    w.depreciation_years = o->optional_positive("depreciation_years", 4.0);
    w.idle_power_w = o->optional_at_least("idle_power_w", 0.0, 0.0);
    w.peak_power_w = o->optional_at_least("peak_power_w", 0.0, 0.0);
    if (w.peak_power_w == 0.0) w.peak_power_w = hw.power_w;  // 0: the hardware's board power
    o->check(w.peak_power_w >= w.idle_power_w, "peak_power_w", "must be >= idle_power_w");
    w.pue = o->optional_at_least("pue", 1.0, 1.0);
    w.usd_per_kwh = o->optional_at_least("usd_per_kwh", 0.0, 0.0);
    w.operations_usd_per_gpu_hour = o->optional_at_least("operations_usd_per_gpu_hour", 0.0, 0.0);
    o->finish();
  }
  if (auto f = r.optional_object("fleet")) {
    FleetTermsSpec& t = c.fleet.emplace();
    t.load_factor = f->optional_positive("load_factor", 1.0);
    f->check(t.load_factor <= 1.0, "load_factor", "must be in (0, 1]: average load / the simulated load");
    t.spare_share = f->optional_at_least("spare_share", 0.0, 0.0);
    t.storage_tb = f->optional_at_least("storage_tb", 0.0, 0.0);
    t.storage_usd_per_tb_month = f->optional_at_least("storage_usd_per_tb_month", 0.0, 0.0);
    f->finish();
  }
  if (auto p = r.optional_object("price_list")) {
    PriceListSpec& l = c.price_list.emplace();
    l.usd_per_m_input = p->require_at_least("usd_per_m_input", 0.0);
    l.usd_per_m_output = p->require_at_least("usd_per_m_output", 0.0);
    l.usd_per_m_cache_read = p->optional_at_least("usd_per_m_cache_read", 0.0, 0.0);
    p->finish();
  }
  r.finish();
  return c;
}

// The largest value a length distribution can take; nullopt when unbounded (lognormal without max).
std::optional<int> max_length(const LengthDistribution& l) {
  switch (l.kind) {
    case LengthKind::fixed:
      return l.value;
    case LengthKind::uniform:
      return l.max;
    case LengthKind::lognormal:
      return l.max > 0 ? std::optional<int>(l.max) : std::nullopt;
    case LengthKind::empirical: {
      int m = 0;
      for (int v : l.values) m = std::max(m, v);
      return m;
    }
  }
  return std::nullopt;
}

// The longest request of every class must fit the model's context. An unbounded length counts with its minimum.
// Errors name the class's input_tokens where the workload was written (inline or its own file).
void check_context(const ScenarioSpec& s, const detail::SpecRef& workload) {
  const bool classes_form = workload.json.contains("classes") && !workload.json["classes"].is_null();
  for (std::size_t i = 0; i < s.workload.classes.size(); ++i) {
    const RequestClass& c = s.workload.classes[i];
    const auto in = max_length(c.input_tokens);
    const auto out = max_length(c.output_tokens);
    if (!in && !out) continue;
    std::int64_t in_tokens = in.value_or(c.input_tokens.min);
    if (c.prefix) in_tokens = std::max<std::int64_t>(in_tokens, c.prefix->tokens + 1);  // shorter inputs are raised
    const std::int64_t out_tokens = out.value_or(c.output_tokens.min);
    if (in_tokens + out_tokens <= s.model.max_context_tokens) continue;
    const std::string in_text =
        in ? "input max " + std::to_string(in_tokens) : "input min " + std::to_string(in_tokens);
    const std::string out_text =
        out ? "output max " + std::to_string(out_tokens) : "output min " + std::to_string(out_tokens);
    const std::string at = classes_form ? "classes[" + std::to_string(i) + "]" : "";
    const nlohmann::json& written = classes_form ? workload.json["classes"][i] : workload.json;
    throw InputError(workload.file, detail::join_path(workload.prefix, detail::join_path(at, "input_tokens")),
                     detail::value_text(written.value("input_tokens", nlohmann::json())),
                     "the longest request (" + in_text + " + " + out_text + " = " +
                         std::to_string(in_tokens + out_tokens) + " tokens) exceeds model '" + s.model.name +
                         "' max_context_tokens " + std::to_string(s.model.max_context_tokens));
  }
}

// MTP drafting runs the model's own MTP layers: a model without them cannot draft that way. Named where the
// deployment says it (its file and field path), since that is what to change (or the model).
// Per-expert shares must name every routed expert, and each EP rank holds the same number of expert slots
// (routed plus redundant), as EPLB lays them out.
void check_moe_load(const ScenarioSpec& s, const detail::SpecRef& deployment) {
  const auto& load = s.deployment.moe_load;
  if (!s.model.moe) return;
  const int experts = s.model.moe->num_routed_experts;
  if (load.distribution == ExpertDistribution::shares && static_cast<int>(load.shares.size()) != experts) {
    throw InputError(
        deployment.file, detail::join_path(deployment.prefix, "moe_load.shares"),
        std::to_string(load.shares.size()) + " values",
        "give one share per routed expert of model '" + s.model.name + "' (" + std::to_string(experts) + ")");
  }
  const int slots = experts + load.redundant_experts;
  // Every pool places the experts over its own ep (one pool without disaggregation).
  std::vector<int> eps{s.deployment.replica.ep};
  if (s.deployment.disaggregation)
    eps = {s.deployment.disaggregation->prefill.replica.ep, s.deployment.disaggregation->decode.replica.ep};
  for (int ep : eps) {
    if (slots % ep != 0) {
      throw InputError(deployment.file, detail::join_path(deployment.prefix, "moe_load.redundant_experts"),
                       std::to_string(load.redundant_experts),
                       "routed experts (" + std::to_string(experts) +
                           ") plus redundant ones must divide evenly over ep " + std::to_string(ep));
    }
  }
}

void check_speculative(const ScenarioSpec& s, const detail::SpecRef& deployment) {
  const auto& spec = s.deployment.speculative;
  if (!spec || spec->method != SpeculativeMethod::mtp || s.model.mtp_layers > 0) return;
  throw InputError(deployment.file, detail::join_path(deployment.prefix, "speculative.method"), "\"mtp\"",
                   "model '" + s.model.name +
                       "' has no MTP layers (mtp_layers 0), so it cannot draft tokens with them; valid methods: mtp, "
                       "with a model whose mtp_layers >= 1 (or remove speculative)");
}

// The prefix cache keeps whole prefix blocks in whole KV blocks: with prefix caching on, a prefix block must be a
// number of KV blocks. Named where the odd one was written: the workload's block when it sets one, else the
// deployment's.
void check_prefix_blocks(const ScenarioSpec& s, const detail::SpecRef& workload, const detail::SpecRef& deployment) {
  const int prefix = s.workload.prefix_block_tokens;
  const int kv = s.deployment.scheduler.kv_block_tokens;
  if (!s.deployment.scheduler.prefix_caching || prefix % kv == 0) return;
  const std::string problem = "workload.prefix_block_tokens (" + std::to_string(prefix) +
                              ") must be a multiple of deployment.scheduler.kv_block_tokens (" + std::to_string(kv) +
                              ") for prefix caching; change one, or set scheduler.prefix_caching false";
  if (prefix != kDefaultPrefixBlockTokens)
    throw InputError(workload.file, detail::join_path(workload.prefix, "prefix_block_tokens"), std::to_string(prefix),
                     problem);
  throw InputError(deployment.file, detail::join_path(deployment.prefix, "scheduler.kv_block_tokens"),
                   std::to_string(kv), problem);
}

}  // namespace

ScenarioSpec parse_scenario(const nlohmann::json& j, const std::string& file, const std::filesystem::path& base_dir) {
  JsonReader r(j, file, "");
  ScenarioSpec s;
  s.name = r.require<std::string>("name");
  r.check(!s.name.empty(), "name", "must not be empty");

  const detail::SpecRef model = detail::resolve_spec_ref(r, "model", PresetKind::model, base_dir);
  s.model = parse_model(model.json, model.file, model.prefix);
  const detail::SpecRef deployment = detail::resolve_spec_ref(r, "deployment", std::nullopt, base_dir);
  s.deployment = parse_deployment(deployment.json, deployment.file, deployment.prefix, deployment.base_dir);
  const detail::SpecRef workload = detail::resolve_spec_ref(r, "workload", std::nullopt, base_dir);
  s.workload = parse_workload(workload.json, workload.file, workload.prefix);

  s.seed = r.optional<std::uint64_t>("seed", 1);
  s.num_requests = r.require_at_least<std::int64_t>("num_requests", 1);
  if (auto m = r.optional_object("measurement")) s.measurement = parse_measurement(std::move(*m));
  const nlohmann::json no_cost = nlohmann::json::object();  // defaults still resolve the hardware's price
  s.cost = parse_cost(r.has("cost") ? r.object("cost") : JsonReader(no_cost, file, "cost"), s.deployment.hardware);
  r.finish();

  check_context(s, workload);
  check_speculative(s, deployment);
  check_moe_load(s, deployment);
  check_prefix_blocks(s, workload, deployment);
  s.resolved = to_json(s);
  return s;
}

}  // namespace fleetcast::specs
