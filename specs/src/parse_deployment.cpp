// JSON -> DeploymentSpec: the hardware (preset, file or object), the replica layout and the scheduler.

#include "fleetcast/specs/load.hpp"
#include "json_reader.hpp"
#include "spec_ref.hpp"

namespace fleetcast::specs {

using detail::JsonReader;

namespace {

constexpr const char* kRuntimes[] = {"vllm", "sglang", "trtllm"};

// The layout must tile the deployment's GPUs, ep must divide tp and tp must fit one scale-up domain.
ReplicaLayout parse_replica(JsonReader r, const DeploymentSpec& d) {
  ReplicaLayout l;
  l.tp = r.optional_at_least("tp", 1, 1);
  l.pp = r.optional_at_least("pp", 1, 1);
  l.ep = r.optional_at_least("ep", 1, 1);
  r.finish();
  const int total = d.total_gpus();
  const std::string gpus_text = "the deployment's " + std::to_string(total) + " GPUs (nodes " +
                                std::to_string(d.nodes) + " x gpus_per_node " + std::to_string(d.gpus_per_node) + ")";
  if (total % l.tp != 0) r.fail("tp", "must divide " + gpus_text);
  if (total % l.gpus() != 0)
    r.fail("pp", "tp x pp = " + std::to_string(l.gpus()) + " GPUs per replica must divide " + gpus_text);
  if (l.tp % l.ep != 0) r.fail("ep", "must divide tp (" + std::to_string(l.tp) + ")");
  if (l.tp > d.hardware.scale_up_domain_gpus)
    r.fail("tp", "must be <= the scale-up (NVLink) domain of hardware '" + d.hardware.name + "' (" +
                     std::to_string(d.hardware.scale_up_domain_gpus) + " GPUs)");
  return l;
}

SchedulerSpec parse_scheduler(JsonReader r) {
  SchedulerSpec s;
  s.max_num_seqs = r.optional_at_least("max_num_seqs", s.max_num_seqs, 1);
  s.max_num_batched_tokens = r.optional_at_least("max_num_batched_tokens", s.max_num_batched_tokens, 1);
  s.chunked_prefill = r.optional<bool>("chunked_prefill", s.chunked_prefill);
  s.gpu_memory_utilization = r.optional<double>("gpu_memory_utilization", s.gpu_memory_utilization);
  r.check(s.gpu_memory_utilization > 0 && s.gpu_memory_utilization <= 1, "gpu_memory_utilization", "must be in (0, 1]");
  s.kv_block_tokens = r.optional_at_least("kv_block_tokens", s.kv_block_tokens, 1);
  s.step_overhead_s = r.optional<double>("step_overhead_s", s.step_overhead_s);
  r.finish();
  return s;
}

}  // namespace

DeploymentSpec parse_deployment(const nlohmann::json& j, const std::string& file, const std::string& prefix,
                                const std::filesystem::path& base_dir) {
  JsonReader r(j, file, prefix);
  DeploymentSpec d;
  d.name = r.optional<std::string>("name", "");
  const detail::SpecRef hw = detail::resolve_spec_ref(r, "hardware", PresetKind::hardware, base_dir);
  d.hardware = parse_hardware(hw.json, hw.file, hw.prefix);
  d.nodes = r.require_at_least("nodes", 1);
  d.gpus_per_node = r.optional_at_least("gpus_per_node", d.hardware.gpus_per_node, 1);
  const nlohmann::json no_replica = nlohmann::json::object();  // the defaults, checked like a given layout
  d.replica =
      parse_replica(r.has("replica") ? r.object("replica") : JsonReader(no_replica, file, r.path("replica")), d);
  if (auto s = r.optional_object("scheduler")) d.scheduler = parse_scheduler(std::move(*s));
  d.router = r.optional_enum("router", RouterPolicy::round_robin, detail::kRouterNames);
  d.runtime = r.optional<std::string>("runtime", "vllm");
  bool known_runtime = false;
  for (const char* name : kRuntimes) known_runtime = known_runtime || d.runtime == name;
  r.check(known_runtime, "runtime", "unknown runtime; valid: vllm, sglang, trtllm");
  r.finish();
  return d;
}

}  // namespace fleetcast::specs
