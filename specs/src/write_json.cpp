// Specs -> JSON: the exact inverse of the parsers. Each object carries only the keys its type accepts.

#include "enum_names.hpp"
#include "fleetcast/specs/load.hpp"

namespace fleetcast::specs {

using nlohmann::json;

namespace {

json attention_json(const AttentionSpec& a) {
  json j = {{"type", detail::name_of(detail::kAttentionNames, a.type)}, {"num_query_heads", a.num_query_heads}};
  if (a.type == AttentionType::gqa) {
    j["num_kv_heads"] = a.num_kv_heads;
    j["head_dim"] = a.head_dim;
    if (a.output_gate) j["output_gate"] = true;  // written only when set: other files echo unchanged
    if (a.qk_norm_across_heads) j["qk_norm_across_heads"] = true;
    if (a.global_num_kv_heads > 0) j["global_num_kv_heads"] = a.global_num_kv_heads;  // written only when set
    if (a.global_head_dim > 0) j["global_head_dim"] = a.global_head_dim;
    if (a.global_k_is_v) j["global_k_is_v"] = true;
  } else {
    j["q_lora_rank"] = a.q_lora_rank;
    j["kv_lora_rank"] = a.kv_lora_rank;
    j["qk_rope_head_dim"] = a.qk_rope_head_dim;
    j["qk_nope_head_dim"] = a.qk_nope_head_dim;
    j["v_head_dim"] = a.v_head_dim;
  }
  if (a.type == AttentionType::mla && a.output_gate) j["output_gate"] = true;  // written only when set
  if (a.type != AttentionType::csa && a.sparse()) {  // written only when set: dense files echo unchanged
    j["sparse_top_k_tokens"] = a.sparse_top_k_tokens;
    j["indexer_heads"] = a.indexer_heads;
    j["indexer_head_dim"] = a.indexer_head_dim;
    if (a.type == AttentionType::gqa) j["sparse_layers"] = a.sparse_layers;
    if (a.type == AttentionType::gqa && a.indexer_layers > 0) j["indexer_layers"] = a.indexer_layers;
  }
  if (a.type == AttentionType::csa) {
    j["global_kv_bytes_per_token"] = a.global_kv_bytes_per_token;
    j["sparse_top_k_tokens"] = a.sparse_top_k_tokens;
    j["indexer_heads"] = a.indexer_heads;
    j["indexer_head_dim"] = a.indexer_head_dim;
    j["indexer_layers"] = a.indexer_layers;
    j["compression_ratio"] = a.compression_ratio;
    j["o_lora_rank"] = a.o_lora_rank;
    j["o_groups"] = a.o_groups;
  }
  j["sliding_window_tokens"] = a.sliding_window_tokens;
  j["sliding_window_layers"] = a.sliding_window_layers;
  if (a.sliding_window_chunked) j["sliding_window_chunked"] = true;  // written only when set
  return j;
}

}  // namespace

json to_json(const LengthDistribution& l) {
  json j = {{"kind", to_string(l.kind)}};
  switch (l.kind) {
    case LengthKind::fixed:
      j["value"] = l.value;
      break;
    case LengthKind::uniform:
      j["min"] = l.min;
      j["max"] = l.max;
      break;
    case LengthKind::lognormal:
      j["median"] = l.median;
      j["sigma"] = l.sigma;
      j["min"] = l.min;
      j["max"] = l.max;
      break;
    case LengthKind::empirical:
      j["values"] = l.values;
      break;
  }
  return j;
}

namespace {

json arrival_json(const ArrivalSpec& a) {
  json j = {{"kind", to_string(a.kind)}};
  if (a.kind == ArrivalKind::trace) {
    j["file"] = a.trace.file;
    if (!a.trace.format.empty()) j["format"] = a.trace.format;
    j["rate_scale"] = a.trace.rate_scale;
    j["window_start_s"] = a.trace.window_start_s;
    j["window_end_s"] = a.trace.window_end_s;
    j["loops"] = a.trace.loops;
    return j;
  }
  if (a.kind == ArrivalKind::closed_loop) {
    j["clients"] = a.clients;
    j["think_time_s"] = a.think_time_s;
    if (a.start != ArrivalStart::together) j["start"] = to_string(a.start);  // old files echo unchanged
    return j;
  }
  if (a.load > 0) {
    j["load"] = a.load;
  } else {
    j["rate_per_s"] = a.rate_per_s;
  }
  if (a.kind == ArrivalKind::gamma) j["cv"] = a.cv;
  if (a.rate_profile.any()) {
    j["rate_profile"] = {{"period_s", a.rate_profile.period_s},
                         {"multipliers", a.rate_profile.multipliers},
                         {"start_s", a.rate_profile.start_s}};
  }
  return j;
}

}  // namespace

json to_json(const ModelSpec& m) {
  json j = {{"name", m.name},
            {"source", m.source},
            {"assumed", m.assumed},
            {"num_layers", m.num_layers},
            {"hidden_size", m.hidden_size},
            {"vocab_size", m.vocab_size},
            {"max_context_tokens", m.max_context_tokens},
            {"tie_word_embeddings", m.tie_word_embeddings},
            {"attention", attention_json(m.attention)},
            {"dense_layers", m.dense_layers},
            {"dense_ffn_width", m.dense_ffn_width},
            {"moe", nullptr},
            {"mtp_layers", m.mtp_layers},
            {"lookup_memory", nullptr}};
  if (m.moe) {
    j["moe"] = {{"num_routed_experts", m.moe->num_routed_experts},
                {"top_k", m.moe->top_k},
                {"num_shared_experts", m.moe->num_shared_experts},
                {"expert_width", m.moe->expert_width},
                {"shared_expert_width", m.moe->shared_expert_width}};
    if (m.moe->latent_width > 0) j["moe"]["latent_width"] = m.moe->latent_width;  // written only when set
  }
  if (m.linear_attention) {  // written only when present: files of other models echo unchanged
    const LinearAttentionSpec& l = *m.linear_attention;
    j["linear_attention"] = {{"layers", l.layers},
                             {"num_key_heads", l.num_key_heads},
                             {"num_value_heads", l.num_value_heads},
                             {"key_head_dim", l.key_head_dim},
                             {"value_head_dim", l.value_head_dim},
                             {"conv_kernel", l.conv_kernel},
                             {"state", to_string(l.state)}};
    if (l.kind != LinearAttentionKind::gated_deltanet)  // written only when set: Gated DeltaNet files echo unchanged
      j["linear_attention"]["kind"] = detail::name_of(detail::kLinearAttentionKindNames, l.kind);
  }
  // Written only when set: files of models whose every layer has a mixer and a gated FFN echo unchanged.
  if (m.attention_free_layers > 0) j["attention_free_layers"] = m.attention_free_layers;
  if (m.ffn_free_layers > 0) j["ffn_free_layers"] = m.ffn_free_layers;
  if (!m.ffn_gated) j["ffn_gated"] = false;
  if (m.lookup_memory) {
    j["lookup_memory"] = {{"parameters", m.lookup_memory->parameters},
                          {"lookup_layers", m.lookup_memory->lookup_layers},
                          {"row_bytes", m.lookup_memory->row_bytes},
                          {"in_host_memory", m.lookup_memory->in_host_memory}};
  }
  j["precision"] = {{"weights", to_string(m.precision.weights)},
                    {"experts", to_string(m.precision.experts)},
                    {"kv_cache", to_string(m.precision.kv_cache)},
                    {"activations", to_string(m.precision.activations)}};
  if (m.precision.expert_inputs) j["precision"]["expert_inputs"] = to_string(*m.precision.expert_inputs);
  return j;
}

json to_json(const HardwareSpec& h) {
  json j = {{"name", h.name},
            {"source", h.source},
            {"assumed", h.assumed},
            {"arch", h.arch},
            {"peak_tflops", h.peak_tflops},
            {"hbm_gb", h.hbm_gb},
            {"device_memory_gib", h.device_memory_gib},
            {"hbm_tb_per_s", h.hbm_tb_per_s},
            {"nvlink_gb_per_s", h.nvlink_gb_per_s},
            {"scale_up_domain_gpus", h.scale_up_domain_gpus},
            {"gpus_per_node", h.gpus_per_node},
            {"nic_gbit_per_s", h.nic_gbit_per_s},
            {"host_link_gb_per_s", h.host_link_gb_per_s},
            {"host_memory_gb", h.host_memory_gb},
            {"power_w", h.power_w},
            {"price_usd_per_gpu_hour", h.price_usd_per_gpu_hour}};
  // Written only where it is not the default, so that reports of switched domains read as before.
  if (h.scale_up_topology != "switch") j["scale_up_topology"] = h.scale_up_topology;
  return j;
}

static json moe_load_json(const MoeLoadSpec& m) {
  json j = {{"distribution", to_string(m.distribution)}, {"redundant_experts", m.redundant_experts}};
  if (m.distribution == ExpertDistribution::power_law) j["alpha"] = m.alpha;
  if (m.distribution == ExpertDistribution::shares) j["shares"] = m.shares;
  return j;
}

namespace {

json replica_json(const ReplicaLayout& l) { return {{"tp", l.tp}, {"pp", l.pp}, {"ep", l.ep}, {"dp", l.dp}}; }

json scheduler_json(const SchedulerSpec& s) {
  return {{"max_num_seqs", s.max_num_seqs},
          {"max_num_batched_tokens", s.max_num_batched_tokens},
          {"chunked_prefill", s.chunked_prefill},
          {"gpu_memory_utilization", s.gpu_memory_utilization},
          {"kv_block_tokens", s.kv_block_tokens},
          {"step_overhead_s", s.step_overhead_s},
          {"prefix_caching", s.prefix_caching},
          {"policy", to_string(s.policy)},
          {"chunk_tokens", s.chunk_tokens},
          {"preemption", to_string(s.preemption)},
          {"swap_space_gib", s.swap_space_gib},
          {"decode_overhead_factor", s.decode_overhead_factor},
          {"free_gpu_memory_fraction", s.free_gpu_memory_fraction},
          {"api_servers", s.api_servers},
          {"mixed_chunk", s.mixed_chunk},
          {"recv_interval", s.recv_interval},
          {"batch_wait_iters", s.batch_wait_iters},
          {"batch_wait_tokens_ratio", s.batch_wait_tokens_ratio},
          {"attention_dp_balance", s.adp_balance ? json{{"timeout_iters", s.adp_timeout_iters},
                                                        {"batching_wait_iters", s.adp_batching_wait_iters}}
                                                 : json(nullptr)},
          {"prefill_delayer",
           s.prefill_delayer ? json{{"max_delay_passes", s.prefill_delayer_max_delay_passes}} : json(nullptr)},
          // Only trtllm reads it (any other policy rejects it).
          {"capacity_policy", s.policy == SchedulerPolicy::trtllm ? json(to_string(s.capacity)) : json(nullptr)}};
}

json pool_json(const PoolSpec& p) {
  return {{"nodes", p.nodes}, {"replica", replica_json(p.replica)}, {"scheduler", scheduler_json(p.scheduler)}};
}

}  // namespace

json to_json(const DeploymentSpec& d) {
  json speculative = nullptr;
  if (d.speculative) {
    speculative = {{"method", to_string(d.speculative->method)},
                   {"num_draft_tokens", d.speculative->num_draft_tokens},
                   {"acceptance_rates", d.speculative->acceptance_rates}};
  }
  json j = {{"name", d.name},
            {"hardware", to_json(d.hardware)},
            {"nodes", d.nodes},
            {"gpus_per_node", d.gpus_per_node},
            {"replica", replica_json(d.replica)},
            {"scheduler", scheduler_json(d.scheduler)},
            {"router", to_string(d.router)},
            {"runtime", d.runtime},
            {"speculative", speculative},
            {"moe_load", moe_load_json(d.moe_load)},
            {"two_batch_overlap", d.two_batch_overlap}};
  // With disaggregation the pools carry the layouts and schedulers (the top-level ones are refused on input).
  if (d.disaggregation) {
    j.erase("replica");
    j.erase("scheduler");
    j["disaggregation"] = {{"prefill", pool_json(d.disaggregation->prefill)},
                           {"decode", pool_json(d.disaggregation->decode)}};
  }
  return j;
}

namespace {

// A class's keys shared with the single-class form; an SLO only when one is set (absent keys are unchecked).
void write_class_body(const RequestClass& c, json& j) {
  j["arrival"] = arrival_json(c.arrival);
  if (c.arrival.kind != ArrivalKind::trace) {  // a trace's lengths are its own, not the spec's
    j["input_tokens"] = to_json(c.input_tokens);
    j["output_tokens"] = to_json(c.output_tokens);
  }
  if (c.prefix) {
    j["prefix"] = {
        {"groups", c.prefix->groups}, {"tokens", c.prefix->tokens}, {"popularity", to_string(c.prefix->popularity)}};
    if (c.prefix->popularity == PrefixPopularity::zipf) j["prefix"]["zipf_s"] = c.prefix->zipf_s;
  }
  if (!c.slo.any()) return;
  json slo = json::object();
  if (c.slo.ttft_ms > 0.0) slo["ttft_ms"] = c.slo.ttft_ms;
  if (c.slo.tpot_ms > 0.0) slo["tpot_ms"] = c.slo.tpot_ms;
  j["slo"] = slo;
}

}  // namespace

// The single-class form when it says everything, so single-class files echo as they were written; the prefix
// block size only when it matters (a class shares a prefix) or differs from the default.
json to_json(const WorkloadSpec& w) {
  json j = {{"name", w.name}};
  if (w.has_prefixes() || w.prefix_block_tokens != kDefaultPrefixBlockTokens)
    j["prefix_block_tokens"] = w.prefix_block_tokens;
  if (w.is_single_class_form()) {
    write_class_body(w.classes[0], j);
    return j;
  }
  json classes = json::array();
  for (const RequestClass& c : w.classes) {
    json cj = {{"name", c.name}};
    write_class_body(c, cj);
    classes.push_back(cj);
  }
  j["classes"] = classes;
  return j;
}

namespace {

// The optional blocks only when given, so a scenario without them writes back what it did before they existed.
json cost_json(const CostSpec& c) {
  json j = {{"usd_per_gpu_hour", c.usd_per_gpu_hour},
            {"pricing", to_string(c.pricing)},
            {"reserved_discount", c.reserved_discount}};
  if (c.owned) {
    const OwnedCostSpec& o = *c.owned;
    j["owned"] = {{"gpu_purchase_usd", o.gpu_purchase_usd},
                  {"server_usd_per_gpu", o.server_usd_per_gpu},
                  {"network_usd_per_port", o.network_usd_per_port},
                  {"network_ports_per_gpu", o.network_ports_per_gpu},
                  {"depreciation_years", o.depreciation_years},
                  {"idle_power_w", o.idle_power_w},
                  {"peak_power_w", o.peak_power_w},
                  {"pue", o.pue},
                  {"usd_per_kwh", o.usd_per_kwh},
                  {"operations_usd_per_gpu_hour", o.operations_usd_per_gpu_hour}};
  }
  if (c.fleet) {
    j["fleet"] = {{"load_factor", c.fleet->load_factor},
                  {"spare_share", c.fleet->spare_share},
                  {"storage_tb", c.fleet->storage_tb},
                  {"storage_usd_per_tb_month", c.fleet->storage_usd_per_tb_month}};
  }
  if (c.price_list) {
    j["price_list"] = {{"usd_per_m_input", c.price_list->usd_per_m_input},
                       {"usd_per_m_output", c.price_list->usd_per_m_output},
                       {"usd_per_m_cache_read", c.price_list->usd_per_m_cache_read}};
  }
  return j;
}

}  // namespace

json to_json(const ScenarioSpec& s) {
  return {{"name", s.name},
          {"model", to_json(s.model)},
          {"deployment", to_json(s.deployment)},
          {"workload", to_json(s.workload)},
          {"seed", s.seed},
          {"num_requests", s.num_requests},
          {"measurement",
           {{"warmup_fraction", s.measurement.warmup_fraction},
            {"cooldown_fraction", s.measurement.cooldown_fraction},
            {"sample_interval_s", s.measurement.sample_interval_s}}},
          {"cost", cost_json(s.cost)}};
}

}  // namespace fleetcast::specs
