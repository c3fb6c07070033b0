#pragma once
// How GPUs are laid out into serving replicas and how each replica schedules its work.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetcast/specs/hardware.hpp"

namespace fleetcast::specs {

// The GPUs of one replica: dp x tp x pp GPUs. Attention runs data parallel over dp ranks (each with its own
// batch and KV cache, as SGLang's --enable-dp-attention and DeepSeek's DeepInfer lay it out) and is split tp
// ways inside a rank; dense layers, shared experts and the LM head run inside each rank the same way. The MoE
// layers' experts are split ep ways over all dp x tp GPUs of a stage, each expert dp x tp / ep ways (moe
// tensor parallel). dp 1 is plain tensor parallelism.
struct ReplicaLayout {
  int tp = 1;
  int pp = 1;
  int ep = 1;
  int dp = 1;
  int gpus() const { return dp * tp * pp; }
  int stage_gpus() const { return dp * tp; }  // the GPUs one MoE layer's experts are spread over
  int moe_tp() const { return dp * tp / ep; }
  bool operator==(const ReplicaLayout&) const = default;
};

// Which engine's scheduler forms a replica's steps (simulator/batcher.hpp): vLLM v1 (mixed steps, decodes
// first), SGLang (a step is either a prefill or a decode batch, prefill first), TensorRT-LLM (in-flight
// batching behind a capacity scheduler) or AMD's ATOM (whole prompts first, then a decode batch; no admission
// reserve and no chunking).
enum class SchedulerPolicy { vllm, sglang, trtllm, atom };
// What a preempted request loses: its KV (recompute: it prefills again) or only its place (swap: its KV
// waits in host memory).
enum class PreemptionMode { recompute, swap };
// TensorRT-LLM's CapacitySchedulerPolicy: reserve a request's whole max length at admission and never
// pause, or reserve step by step and pause the latest started request when KV runs out.
enum class CapacityPolicy { guaranteed_no_evict, max_utilization };

struct SchedulerSpec {
  int max_num_seqs = 256;             // running sequences per replica (per DP rank with replica.dp > 1)
  int max_num_batched_tokens = 8192;  // token budget per step (prefill chunks + decodes)
  bool chunked_prefill = true;        // false: a prompt is prefilled whole in one step
  // Share of the device memory for weights and the KV cache: vLLM's --gpu-memory-utilization (activations, CUDA graphs
  // and the runtime inside it too) and SGLang's --mem-fraction-static (they outside it). < 0: the policy's default,
  // 0.9, or under sglang the fraction SGLang computes for the GPU and layout (simulator/sglang_memory.hpp).
  double gpu_memory_utilization = -1.0;
  int kv_block_tokens = 16;       // paged KV block size
  double step_overhead_s = -1.0;  // per-step host overhead; < 0: the profile's value
  bool prefix_caching = true;     // automatic prefix caching (vLLM v1: on by default)
  SchedulerPolicy policy = SchedulerPolicy::vllm;
  int chunk_tokens = 0;  // most prompt tokens of one request in a step; 0: max_num_batched_tokens
  PreemptionMode preemption = PreemptionMode::recompute;
  double swap_space_gib = 4.0;  // host memory per GPU for swapped-out KV (vLLM's --swap-space)
  CapacityPolicy capacity = CapacityPolicy::guaranteed_no_evict;  // trtllm only
  double decode_overhead_factor = -1.0;  // step overhead share of a decode-only step; < 0: the policy's
  bool mixed_chunk = false;  // sglang only (--enable-mixed-chunk): the running decodes ride in each prefill step
  int recv_interval = 1;     // sglang only (--scheduler-recv-interval): decode steps between taking in requests
  // trtllm only (batch_wait_timeout_iters, batch_wait_max_tokens_ratio): while decodes run, new contexts wait up to
  // this many steps for the step's tokens to reach the ratio x max_num_batched_tokens. 0 and 0: never wait.
  int batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0.0;
  // trtllm only, with attention data parallelism (attention_dp_config.enable_balance): the DP ranks hold their new
  // contexts until every rank has one, at most adp_timeout_iters steps (none while a rank has no decodes), then up
  // to adp_batching_wait_iters more steps while every rank also decodes (PyExecutor._balance_adp_requests).
  // TensorRT-LLM's defaults: off, 50 and 10.
  bool adp_balance = false;
  int adp_timeout_iters = 50;
  int adp_batching_wait_iters = 10;
  // sglang only, with attention data parallelism (--enable-prefill-delayer; SGLang's PrefillDelayer): before each
  // step the DP ranks agree whether new requests may start prefilling. While some ranks could and others could not,
  // or while every rank could but the fullest running batch leaves fewer free slots than the largest recent prefill
  // batch, they wait, at most prefill_delayer_max_delay_passes steps (SGLang's default 30).
  bool prefill_delayer = false;
  int prefill_delayer_max_delay_passes = 30;
  // trtllm only (kv_cache_config.free_gpu_memory_fraction): the KV cache takes this share of the memory left once
  // the weights, activations and runtime are in place, and gpu_memory_utilization is not used. 0: the KV cache is
  // what gpu_memory_utilization x HBM leaves, as vLLM and SGLang size it. < 0: the policy's, TensorRT-LLM's 0.9 under
  // trtllm and 0 under the others.
  double free_gpu_memory_fraction = -1.0;
  // vllm only (--api-server-count): the API server processes in front of the DP ranks, each placing the requests it
  // receives on its own view of the ranks' queues (simulator/dp_router.hpp). 0: vLLM's default, one per DP rank.
  int api_servers = 0;
  bool operator==(const SchedulerSpec&) const = default;

  int chunk_limit() const { return chunk_tokens > 0 ? chunk_tokens : max_num_batched_tokens; }
  double swap_space_bytes() const { return swap_space_gib * 1073741824.0; }
  double kv_free_memory_fraction() const {
    if (free_gpu_memory_fraction >= 0.0) return free_gpu_memory_fraction;
    return policy == SchedulerPolicy::trtllm ? 0.9 : 0.0;
  }
  // TensorRT-LLM runs decode-only steps as CUDA graphs with its C++ batch manager: assumed half the host
  // overhead of the profile (measured for vLLM v1), not measured. The other policies keep the profile's.
  double decode_overhead_share() const {
    if (decode_overhead_factor >= 0.0) return decode_overhead_factor;
    return policy == SchedulerPolicy::trtllm ? 0.5 : 1.0;
  }
};

// How the router places a request (simulator/router_policy.hpp): in turn; on the replica with the fewest
// requests in flight; on the one whose KV cache is least used (as its load reports say); on the less busy of
// two replicas drawn at random; on the one that holds the longest part of its prompt's prefix (cache aware).
enum class RouterPolicy { round_robin, least_outstanding, least_kv_load, power_of_two, prefix_aware };

// Who proposes the draft tokens. Only the model's own multi-token-prediction layers for now; a separate draft
// model would need its own model spec and memory.
enum class SpeculativeMethod { mtp };

// Speculative decoding: each decode step verifies the last sampled token plus num_draft_tokens drafts.
struct SpeculativeSpec {
  SpeculativeMethod method = SpeculativeMethod::mtp;
  int num_draft_tokens = 1;
  // Conditional acceptance: rate i = P(draft i accepted | drafts 1..i-1 were). Kept as given (one value for
  // every position, or one per position) so that to_json writes back what was read.
  std::vector<double> acceptance_rates;
  // The rate of draft `position` (0-based).
  double rate(int position) const {
    return acceptance_rates.size() == 1 ? acceptance_rates.front() : acceptance_rates.at(position);
  }
  bool operator==(const SpeculativeSpec&) const = default;
};

// How routed-expert traffic spreads over the experts, and EPLB-style redundant copies of the hottest ones.
enum class ExpertDistribution { balanced, power_law, shares };

struct MoeLoadSpec {
  ExpertDistribution distribution = ExpertDistribution::balanced;
  double alpha = 1.0;          // power_law: the expert of popularity rank i gets a share proportional to i^-alpha
  std::vector<double> shares;  // shares: one non-negative weight per routed expert (normalised)
  int redundant_experts = 0;   // extra expert copies per MoE layer, given to the hottest experts
  bool operator==(const MoeLoadSpec&) const = default;
};

// Prefill/decode disaggregation: a pool of replicas that only prefill and one that only decodes, each with
// its own layout and scheduler (its own memory plan and step-time model). The prefill pool takes the
// deployment's first nodes x gpus_per_node GPUs, the decode pool the next; the deployment's nodes are the sum.
struct PoolSpec {
  int nodes = 1;
  ReplicaLayout replica;
  SchedulerSpec scheduler;
  bool operator==(const PoolSpec&) const = default;
};

struct DisaggregationSpec {
  PoolSpec prefill;
  PoolSpec decode;
  bool operator==(const DisaggregationSpec&) const = default;
};

enum class Pool { prefill, decode };

// The serving engines a deployment's `runtime` may name: their behaviour and profiles (docs/SPECS.md).
std::span<const std::string_view> runtime_names();

struct DeploymentSpec {
  std::string name;
  HardwareSpec hardware;
  int nodes = 1;
  int gpus_per_node = 8;
  ReplicaLayout replica;
  SchedulerSpec scheduler;
  RouterPolicy router = RouterPolicy::round_robin;
  std::string runtime = "vllm";                // which serving engine's behaviour and profile to use
  std::optional<SpeculativeSpec> speculative;  // absent: no speculative decoding
  MoeLoadSpec moe_load;                        // ignored for dense models
  // Two-batch overlap (SGLang --enable-two-batch-overlap, DeepSeek's dual micro-batch): a step runs as two
  // micro-batches so that one's communication hides behind the other's compute.
  bool two_batch_overlap = false;
  std::optional<DisaggregationSpec> disaggregation;  // absent: every replica prefills and decodes

  int total_gpus() const { return nodes * gpus_per_node; }
  int num_replicas() const { return total_gpus() / replica.gpus(); }
  bool operator==(const DeploymentSpec&) const = default;
};

// One pool of a disaggregated deployment as a deployment of its own (its nodes, layout and scheduler, no
// disaggregation): what the memory plan, step-time model and batchers of that pool see.
DeploymentSpec pool_deployment(const DeploymentSpec& d, Pool pool);
// The GPU index where a pool's GPUs start: 0 for prefill, prefill's GPUs for decode.
int pool_first_gpu(const DeploymentSpec& d, Pool pool);
// Replicas that serve: both pools' with disaggregation (prefill first), num_replicas() without.
int serving_replicas(const DeploymentSpec& d);

std::string_view to_string(RouterPolicy p);
std::string_view to_string(SchedulerPolicy p);
std::string_view to_string(PreemptionMode m);
std::string_view to_string(CapacityPolicy p);
std::string_view to_string(SpeculativeMethod m);
std::string_view to_string(ExpertDistribution d);

}  // namespace fleetcast::specs
