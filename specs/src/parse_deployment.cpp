// JSON -> DeploymentSpec: the hardware (preset, file or object), the replica layout, the scheduler and
// speculative decoding.

#include "fleetcast/specs/engine_defaults.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/specs/sglang_defaults.hpp"
#include "fleetcast/specs/vendor.hpp"
#include "json_reader.hpp"
#include "spec_ref.hpp"

namespace fleetcast::specs {

std::span<const std::string_view> runtime_names() {
  static constexpr std::string_view kRuntimes[] = {"vllm", "sglang", "trtllm", "deepinfer", "atom"};
  return kRuntimes;
}

using detail::JsonReader;

namespace {

// The layout must tile the deployment's GPUs, ep must divide dp x tp, and tp must fit one scale-up domain or span
// whole domains (TP16 over two 8-GPU HGX nodes: its all-reduce crosses the NICs between them).
ReplicaLayout parse_replica(JsonReader r, const DeploymentSpec& d) {
  ReplicaLayout l;
  l.tp = r.optional_at_least("tp", 1, 1);
  l.pp = r.optional_at_least("pp", 1, 1);
  l.ep = r.optional_at_least("ep", 1, 1);
  l.dp = r.optional_at_least("dp", 1, 1);
  r.finish();
  const int total = d.total_gpus();
  const std::string gpus_text = "the deployment's " + std::to_string(total) + " GPUs (nodes " +
                                std::to_string(d.nodes) + " x gpus_per_node " + std::to_string(d.gpus_per_node) + ")";
  if (total % l.tp != 0) r.fail("tp", "must divide " + gpus_text);
  if (total % l.gpus() != 0) {
    const std::string field = l.dp > 1 ? "dp" : "pp";
    r.fail(field, "dp x tp x pp = " + std::to_string(l.gpus()) + " GPUs per replica must divide " + gpus_text);
  }
  if (l.stage_gpus() % l.ep != 0) {
    r.fail("ep", "must divide dp x tp (" + std::to_string(l.stage_gpus()) + "): experts spread over those GPUs");
  }
  const int domain = d.hardware.scale_up_domain_gpus;
  if (l.tp > domain && l.tp % domain != 0)
    r.fail("tp", "must be <= the scale-up (NVLink) domain of hardware '" + d.hardware.name + "' (" +
                     std::to_string(domain) + " GPUs) or a whole number of domains");
  return l;
}

// The engine whose scheduler forms the steps, its chunk size, preemption mode and decode overhead.
void parse_scheduler_policy(JsonReader& r, SchedulerSpec& s) {
  s.policy = r.optional_enum("policy", s.policy, detail::kSchedulerPolicyNames);
  // Left out, chunked prefill is the policy's: on, but off for ATOM, which has none.
  if (!r.has("chunked_prefill")) s.chunked_prefill = s.policy != SchedulerPolicy::atom;
  // The SGLang runtime's default chunk is SGLang's own: another policy, or no chunking, has none.
  if (!r.has("chunk_tokens") && (s.policy != SchedulerPolicy::sglang || !s.chunked_prefill)) s.chunk_tokens = 0;
  s.chunk_tokens = r.optional_at_least("chunk_tokens", s.chunk_tokens, 0);
  // SGLang's chunked_prefill_size and max_prefill_tokens are independent limits (a first prompt may exceed the
  // latter); the other engines have one step budget that a chunk cannot exceed.
  r.check(s.chunk_tokens <= s.max_num_batched_tokens || s.policy == SchedulerPolicy::sglang, "chunk_tokens",
          "must be <= max_num_batched_tokens (" + std::to_string(s.max_num_batched_tokens) +
              "); 0: max_num_batched_tokens");
  r.check(s.chunk_tokens == 0 || s.chunked_prefill, "chunk_tokens",
          "needs chunked_prefill: without it a prompt is prefilled whole");
  // ATOM's scheduler has no chunking: a prompt is scheduled whole or waits (atom/model_engine/scheduler.py).
  r.check(s.policy != SchedulerPolicy::atom || !s.chunked_prefill, "chunked_prefill",
          "must be false with policy atom: ATOM prefills each prompt whole");
  s.preemption = r.optional_enum("preemption", s.preemption, detail::kPreemptionNames);
  r.check(s.policy != SchedulerPolicy::atom || s.preemption == PreemptionMode::recompute, "preemption",
          "must be recompute with policy atom: ATOM drops a preempted request's KV");
  s.swap_space_gib = r.optional<double>("swap_space_gib", s.swap_space_gib);
  r.check(s.swap_space_gib >= 0.0 && s.swap_space_gib <= 1e6, "swap_space_gib", "must be in [0, 1e6] GiB");
  if (r.has("capacity_policy")) {
    r.check(s.policy == SchedulerPolicy::trtllm, "capacity_policy", "applies only to policy trtllm");
    s.capacity = r.require_enum("capacity_policy", detail::kCapacityPolicyNames);
  }
  // TensorRT-LLM chunks a context in whole KV blocks (its chunk unit): a chunk limit below one block could never
  // schedule a non-final chunk.
  if (s.policy == SchedulerPolicy::trtllm && s.chunked_prefill) {
    r.check(s.chunk_limit() >= s.kv_block_tokens, s.chunk_tokens > 0 ? "chunk_tokens" : "max_num_batched_tokens",
            "must be >= kv_block_tokens (" + std::to_string(s.kv_block_tokens) +
                ") with policy trtllm: its context chunks are whole KV blocks");
  }
  s.mixed_chunk = r.optional<bool>("mixed_chunk", s.mixed_chunk);
  r.check(!s.mixed_chunk || s.policy == SchedulerPolicy::sglang, "mixed_chunk",
          "applies only to policy sglang (vLLM and TensorRT-LLM always batch decodes with prefills)");
  s.recv_interval = r.optional_at_least("recv_interval", s.recv_interval, 1);
  r.check(s.recv_interval == 1 || s.policy == SchedulerPolicy::sglang, "recv_interval",
          "applies only to policy sglang (its --scheduler-recv-interval)");
  s.batch_wait_iters = r.optional_at_least("batch_wait_iters", s.batch_wait_iters, 0);
  r.check(s.batch_wait_iters == 0 || s.policy == SchedulerPolicy::trtllm, "batch_wait_iters",
          "applies only to policy trtllm (its batch_wait_timeout_iters)");
  s.batch_wait_tokens_ratio = r.optional<double>("batch_wait_tokens_ratio", s.batch_wait_tokens_ratio);
  r.check(s.batch_wait_tokens_ratio >= 0.0 && s.batch_wait_tokens_ratio <= 1.0, "batch_wait_tokens_ratio",
          "must be in [0, 1]");
  r.check(s.batch_wait_tokens_ratio == 0.0 || s.policy == SchedulerPolicy::trtllm, "batch_wait_tokens_ratio",
          "applies only to policy trtllm (its batch_wait_max_tokens_ratio)");
  if (auto balance = r.optional_object("attention_dp_balance")) {
    r.check(s.policy == SchedulerPolicy::trtllm, "attention_dp_balance",
            "applies only to policy trtllm (its attention_dp_config.enable_balance)");
    s.adp_balance = true;
    s.adp_timeout_iters = balance->optional_at_least("timeout_iters", s.adp_timeout_iters, 0);
    s.adp_batching_wait_iters = balance->optional_at_least("batching_wait_iters", s.adp_batching_wait_iters, 0);
    balance->finish();
  }
  if (auto delayer = r.optional_object("prefill_delayer")) {
    r.check(s.policy == SchedulerPolicy::sglang, "prefill_delayer",
            "applies only to policy sglang (its --enable-prefill-delayer)");
    s.prefill_delayer = true;
    s.prefill_delayer_max_delay_passes =
        delayer->optional_at_least("max_delay_passes", s.prefill_delayer_max_delay_passes, 1);
    delayer->finish();
  }
  s.free_gpu_memory_fraction = r.optional<double>("free_gpu_memory_fraction", s.free_gpu_memory_fraction);
  r.check(s.free_gpu_memory_fraction <= 1.0, "free_gpu_memory_fraction",
          "must be in (0, 1], 0 (gpu_memory_utilization sizes the KV cache) or < 0 (the policy's default)");
  r.check(s.free_gpu_memory_fraction <= 0.0 || s.policy == SchedulerPolicy::trtllm, "free_gpu_memory_fraction",
          "applies only to policy trtllm (its kv_cache_config.free_gpu_memory_fraction)");
  s.api_servers = r.optional_at_least("api_servers", s.api_servers, 0);
  r.check(s.api_servers == 0 || s.policy == SchedulerPolicy::vllm, "api_servers",
          "applies only to policy vllm (its --api-server-count)");
  s.decode_overhead_factor = r.optional<double>("decode_overhead_factor", s.decode_overhead_factor);
  r.check(s.decode_overhead_factor <= 1.0, "decode_overhead_factor",
          "must be in [0, 1] (or < 0: the policy's default)");
}

// The rules that need attention data parallelism or its absence: TensorRT-LLM balances contexts across attention-DP
// ranks only (a layout without them has nothing to balance) and waits for batches only without them
// (PyExecutor._schedule); SGLang's prefill delayer needs them.
void check_attention_dp_rules(JsonReader& r, const SchedulerSpec& s, const ReplicaLayout& l) {
  r.check(!s.adp_balance || l.dp > 1, "scheduler",
          "attention_dp_balance needs attention data parallelism (replica.dp > 1; dp is " + std::to_string(l.dp) + ")");
  // SGLang refuses --enable-prefill-delayer without --enable-dp-attention (PrefillDelayer's assertion).
  r.check(!s.prefill_delayer || l.dp > 1, "scheduler",
          "prefill_delayer needs attention data parallelism (replica.dp > 1; dp is " + std::to_string(l.dp) + ")");
  r.check(l.dp == 1 || (s.batch_wait_iters == 0 && s.batch_wait_tokens_ratio == 0.0), "scheduler",
          "batch_wait_iters and batch_wait_tokens_ratio apply only without attention data parallelism (replica.dp is " +
              std::to_string(l.dp) + "): TensorRT-LLM balances attention-DP ranks with attention_dp_balance instead");
}

// What a scheduler leaves out is the runtime's engine's on this GPU: SGLang, TensorRT-LLM and ATOM schedule their
// own way (ATOM with whole prompts); vLLM and DeepInfer take the vLLM step. The batch caps and token budgets are the
// ones each engine's server picks when its launcher gives none:
//   vLLM (EngineArgs.get_batch_defaults, UsageContext.OPENAI_API_SERVER): 1,024 sequences and 8,192 tokens on a GPU
//     of at least 70 GiB other than an A100, 256 and 2,048 otherwise; since v0.28 16,384 tokens from 160 GiB.
//   SGLang (server_args, ModelRunner): max_prefill_tokens 16,384; chunked_prefill_size 2,048 below 35 GiB, 4,096
//     below 60, 8,192 below 160, 16,384 above; max_running_requests per worker min(KV tokens / context length x 512
//     within [2,048, 4,096], KV tokens / 2): 2,048 unless the cache holds four full contexts, the KV cache bounding
//     the running batch further.
//   TensorRT-LLM (trtllm-serve): max_batch_size 2,048, max_num_tokens 8,192.
//   ATOM (atom/config.py): max_num_batched_tokens 16,384.
// DeepInfer keeps the spec's own defaults (256, 8,192): it publishes none.
SchedulerSpec scheduler_defaults_for(const std::string& runtime, const HardwareSpec& hw) {
  SchedulerSpec s;
  const double gib = hw.hbm_bytes() / 1073741824.0;
  if (runtime == "vllm") {
    const bool large = gib >= 70.0 && hw.name.find("a100") == std::string::npos;
    s.max_num_seqs = large ? 1024 : 256;
    s.max_num_batched_tokens = !large ? 2048 : gib >= 160.0 ? 16384 : 8192;
  }
  if (runtime == "sglang") {
    s.policy = SchedulerPolicy::sglang;
    s.max_num_seqs = 2048;
    s.max_num_batched_tokens = 16384;
    s.chunk_tokens = sglang_chunked_prefill_tokens(gib);
  }
  if (runtime == "trtllm") {
    s.policy = SchedulerPolicy::trtllm;
    s.max_num_seqs = 2048;
  }
  if (runtime == "atom") {
    s.policy = SchedulerPolicy::atom;
    s.chunked_prefill = false;
    s.max_num_batched_tokens = 16384;
  }
  return s;
}

SchedulerSpec parse_scheduler(JsonReader r, SchedulerSpec s) {
  s.max_num_seqs = r.optional_at_least("max_num_seqs", s.max_num_seqs, 1);
  s.max_num_batched_tokens = r.optional_at_least("max_num_batched_tokens", s.max_num_batched_tokens, 1);
  s.chunked_prefill = r.optional<bool>("chunked_prefill", s.chunked_prefill);
  s.gpu_memory_utilization = r.optional<double>("gpu_memory_utilization", s.gpu_memory_utilization);
  r.check(s.gpu_memory_utilization != 0 && s.gpu_memory_utilization <= 1, "gpu_memory_utilization",
          "must be in (0, 1] (or < 0: the policy's default)");
  s.kv_block_tokens = r.optional_at_least("kv_block_tokens", s.kv_block_tokens, 1);
  s.step_overhead_s = r.optional<double>("step_overhead_s", s.step_overhead_s);
  s.prefix_caching = r.optional<bool>("prefix_caching", s.prefix_caching);
  parse_scheduler_policy(r, s);
  r.finish();
  return s;
}

constexpr int kMaxDraftTokens = 16;

// Whether the model has MTP layers is checked with the scenario, which knows both (parse_scenario.cpp).
SpeculativeSpec parse_speculative(JsonReader& r) {
  SpeculativeSpec s;
  s.method = r.require_enum("method", detail::kSpeculativeMethodNames);
  s.num_draft_tokens = r.require_at_least("num_draft_tokens", 1);
  r.check(s.num_draft_tokens <= kMaxDraftTokens, "num_draft_tokens",
          "must be in [1, " + std::to_string(kMaxDraftTokens) + "]");
  s.acceptance_rates = r.number_array("acceptance_rates", 0.0, 1.0);
  const auto given = static_cast<int>(s.acceptance_rates.size());
  r.check(given == 1 || given == s.num_draft_tokens, "acceptance_rates",
          "gives " + std::to_string(given) + " rates for num_draft_tokens " + std::to_string(s.num_draft_tokens) +
              "; give one per draft position (" + std::to_string(s.num_draft_tokens) + ") or one for every position");
  r.finish();
  return s;
}

MoeLoadSpec parse_moe_load(JsonReader& r) {
  MoeLoadSpec m;
  m.distribution = r.optional_enum("distribution", ExpertDistribution::balanced, detail::kExpertDistributionNames);
  if (m.distribution == ExpertDistribution::power_law) m.alpha = r.require_positive("alpha");
  if (m.distribution == ExpertDistribution::shares) {
    m.shares = r.number_array("shares", 0.0, 1e300);
    double total = 0.0;
    for (double x : m.shares) total += x;
    r.check(total > 0.0, "shares", "must not all be 0");
  }
  m.redundant_experts = r.optional_at_least("redundant_experts", 0, 0);
  r.finish();
  return m;
}

// One pool: its nodes, and a layout and scheduler checked against those nodes alone.
PoolSpec parse_pool(JsonReader r, const DeploymentSpec& d) {
  PoolSpec p;
  DeploymentSpec pool = d;
  pool.nodes = p.nodes = r.require_at_least("nodes", 1);
  const nlohmann::json no_replica = nlohmann::json::object();
  p.replica =
      parse_replica(r.has("replica") ? r.object("replica") : JsonReader(no_replica, r.file(), r.path("replica")), pool);
  p.scheduler = scheduler_defaults_for(d.runtime, d.hardware);
  if (auto s = r.optional_object("scheduler")) p.scheduler = parse_scheduler(std::move(*s), p.scheduler);
  check_attention_dp_rules(r, p.scheduler, p.replica);
  r.finish();
  return p;
}

// The pools split the deployment's nodes; the top-level replica and scheduler would be unused, so they are
// refused rather than silently ignored.
DisaggregationSpec parse_disaggregation(JsonReader& deployment, JsonReader r, const DeploymentSpec& d) {
  for (const char* key : {"replica", "scheduler"}) {
    deployment.check(!deployment.has(key), key,
                     "not used with disaggregation: give disaggregation.prefill." + std::string(key) +
                         " and disaggregation.decode." + key + " instead");
  }
  DisaggregationSpec g;
  g.prefill = parse_pool(r.object("prefill"), d);
  g.decode = parse_pool(r.object("decode"), d);
  r.finish();
  const int sum = g.prefill.nodes + g.decode.nodes;
  deployment.check(d.nodes == sum, "nodes",
                   "must equal disaggregation.prefill.nodes + disaggregation.decode.nodes (" +
                       std::to_string(g.prefill.nodes) + " + " + std::to_string(g.decode.nodes) + " = " +
                       std::to_string(sum) + ")");
  return g;
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
  d.runtime = r.optional<std::string>("runtime", "vllm");
  std::string valid;
  bool known_runtime = false;
  for (const std::string_view name : runtime_names()) {
    known_runtime = known_runtime || d.runtime == name;
    valid += (valid.empty() ? "" : ", ") + std::string(name);
  }
  r.check(known_runtime, "runtime", "unknown runtime; valid: " + valid);
  // An engine on a GPU it was never built for (TensorRT-LLM on an AMD GPU, ATOM on an NVIDIA one) is no deployment.
  const std::string mismatch = runtime_vendor_mismatch(d.runtime, d.hardware.arch);
  r.check(mismatch.empty(), "runtime", mismatch + " (hardware " + d.hardware.name + ")");
  d.scheduler = scheduler_defaults_for(d.runtime, d.hardware);
  if (auto s = r.optional_object("scheduler")) d.scheduler = parse_scheduler(std::move(*s), d.scheduler);
  check_attention_dp_rules(r, d.scheduler, d.replica);
  d.router = r.optional_enum("router", RouterPolicy::round_robin, detail::kRouterNames);
  if (auto spec = r.optional_object("speculative")) {
    d.speculative = parse_speculative(*spec);
    // A decode verifies 1 + n tokens in one step: a budget smaller than that could never schedule one.
    spec->check(d.scheduler.max_num_batched_tokens >= 1 + d.speculative->num_draft_tokens, "num_draft_tokens",
                "1 + num_draft_tokens must fit the scheduler's max_num_batched_tokens (" +
                    std::to_string(d.scheduler.max_num_batched_tokens) + ")");
  }
  if (auto load = r.optional_object("moe_load")) d.moe_load = parse_moe_load(*load);
  d.two_batch_overlap = r.optional<bool>("two_batch_overlap", false);
  if (auto g = r.optional_object("disaggregation")) {
    d.disaggregation = parse_disaggregation(r, std::move(*g), d);
    if (d.speculative) {
      const int budget = d.disaggregation->decode.scheduler.max_num_batched_tokens;
      r.check(budget >= 1 + d.speculative->num_draft_tokens, "speculative",
              "1 + num_draft_tokens must fit disaggregation.decode.scheduler.max_num_batched_tokens (" +
                  std::to_string(budget) + ")");
    }
  }
  r.finish();
  return d;
}

SchedulerSpec engine_scheduler_defaults(const std::string& runtime, const std::string& hardware) {
  return scheduler_defaults_for(runtime, hardware_preset(hardware));
}

}  // namespace fleetcast::specs
