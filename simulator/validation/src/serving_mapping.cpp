// Mapping a measured benchmark row to a scenario: the names to presets, the layout to a replica, the
// backend to its scheduler and default budgets, the benchmark client to closed-loop clients.
#include "fleetcast/validation/serving_mapping.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <utility>

#include "fleetcast/simulator/sglang_memory.hpp"
#include "fleetcast/specs/engine_defaults.hpp"
#include "fleetcast/specs/load.hpp"
#include "fleetcast/specs/presets.hpp"
#include "fleetcast/validation/checkpoint_names.hpp"
#include "fleetcast/validation/speculative_run.hpp"
#include "text.hpp"

namespace fleetcast::validation {
namespace {

using detail::lower;

// The RTX PRO 6000 preset is its Server Edition, however the name is spelt ("rtx6000pro", InferenceX's runner;
// "RTX_PRO_6000", "rtx-pro-6000-blackwell-server"). The Workstation and Max-Q Editions are the same chip at other
// memory clocks and power (1,792 GB/s, 300 W): other parts, left unmapped.
std::string rtx_pro_6000_preset_name(const std::string& name) {
  std::string squashed;
  for (char c : name) {
    if (c != '_' && c != '-' && c != ' ') squashed += c;
  }
  for (const char* spelling : {"rtx6000pro", "rtxpro6000"}) {
    if (!squashed.starts_with(spelling)) continue;
    std::string edition = squashed.substr(std::string(spelling).size());
    if (edition.starts_with("blackwell")) edition = edition.substr(9);
    if (edition.empty() || edition == "server" || edition == "serveredition" || edition == "se" || edition == "bse")
      return "rtx6000pro";
  }
  return name;
}

// The hardware presets model the SXM boards (HGX, DGX), so "_sxm" names the preset itself. Other form factors of
// the same chip are other parts: an H100 PCIe or an H200 NVL runs at lower clocks, power and bandwidth, and is
// not mapped to the SXM preset. L40S exists only as a PCIe card, so its preset is that card. AMD's Instinct MI300X,
// MI325X and MI355X are made only as OAM modules, which their presets model, so "_oam" names the preset too, and the
// GB200 and GB300 presets are the NVL72 racks. The suffix may be written with "-" and carry the board generation
// ("h200-sxm", "h100_sxm5"). Other spellings of a preset's part, after those suffixes, with "_" read as "-" (a name
// that maps to no preset is reported as written):
//   l40s-pcie: the L40S is a PCIe card only;
//   h20-3e, h20e: NVIDIA's H20 with H200's 141 GB of HBM3e (aiconfigurator's h20_3e and h20e_sxm); the plain H20 has
//     96 GB of HBM3;
//   b60, intel-arc-pro-b60: Intel's Arc Pro B60 (aiconfigurator's b60).
constexpr std::pair<const char*, const char*> kSystemSpellings[] = {
    {"l40s-pcie", "l40s"},  {"h20-3e", "h20-3e"},           {"h20e", "h20-3e"},
    {"b60", "arc-pro-b60"}, {"arc-pro-b60", "arc-pro-b60"}, {"intel-arc-pro-b60", "arc-pro-b60"}};

std::string hardware_preset_name(const std::string& system) {
  std::string name = lower(system);
  for (const std::string sep : {"_", "-"}) {
    for (const char* form : {"sxm5", "sxm6", "sxm", "oam"}) detail::strip_suffix(name, sep + form);
    if (name.starts_with("gb")) detail::strip_suffix(name, sep + "nvl72");
  }
  std::string dashed = name;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (const auto& [spelling, preset] : kSystemSpellings) {
    if (dashed == spelling) return preset;
  }
  return rtx_pro_6000_preset_name(name);
}

// "model | system | backend | mode", the model being its preset (or the checkpoint's name when it has none).
std::string group_key(const std::string& model, const traces::MeasuredServingRun& run) {
  return model + " | " + hardware_preset_name(run.system) + " | " + run.backend + " | " + run.mode;
}

// A quant-mode cell as a precision name; "" when blank (the caller falls back). Names as aiconfigurator writes
// them (sdk/common.py GEMMQuantMode, MoEQuantMode) and their short forms.
std::string precision_of(const std::string& quant_mode) {
  const std::string q = lower(quant_mode);
  if (q.empty()) return "";
  if (q == "fp8" || q == "fp8_block" || q == "fp8_static" || q == "fp8_ootb") return "fp8";
  if (q == "nvfp4") return "nvfp4";
  if (q == "fp4" || q == "mxfp4" || q == "w4a16_mxfp4" || q == "w4a8_mxfp4_mxfp8") return "fp4";
  if (q == "int4" || q == "int4_wo" || q == "w4a16" || q == "w4afp8") return "int4";
  if (q == "bf16" || q == "bfloat16" || q == "float16" || q == "fp16") return "bf16";
  return "?" + q;
}

// The format a quant mode feeds its GEMMs' activations in, where the mode names one other than what the engines
// pair with its weights by default (simulator/gemm_inputs.hpp): MXFP4 x BF16, MXFP4 x MXFP8, INT4 x FP8.
std::string inputs_of(const std::string& quant_mode) {
  const std::string q = lower(quant_mode);
  if (q == "w4a16_mxfp4") return "bf16";
  if (q == "w4a8_mxfp4_mxfp8" || q == "w4afp8") return "fp8";
  return "";
}

// The engines' default step token budgets on these GPUs (the rows do not say; the benchmarks ran the servers'
// defaults unless told otherwise):
//   vLLM v1 API server (vllm/engine/arg_utils.py, _set_default_args_v1): max_num_batched_tokens 8192 on GPUs
//     with >= 70 GiB (MI300X too); one prompt may take the whole budget. From v0.28.0 (get_batch_defaults, tag
//     2cf0a69) 16384 on GPUs with >= 160 GiB (B200, B300, GB200, GB300, MI300X and later): a row whose
//     backend_version is 0.28 or later takes that; a blank or nightly version, the older default.
//   SGLang (sglang/srt/server_args.py): max_prefill_tokens 16384; chunked_prefill_size 8192 below 160 GB of
//     HBM (H100, H200), 16384 above (B200, B300, GB200, GB300).
//   TensorRT-LLM (trtllm-serve): max_num_tokens 8192.
//   ATOM (atom/config.py): max_num_batched_tokens 16384, each prompt whole (no chunking).
// A row whose provenance says how its launcher started the engine (MeasuredServingRun::server_*, set by the
// reader) takes those settings instead.
// A version string's release numbers, "X.Y[.Z...]" or "vX.Y...", the patch 0 where it has none; none for one that
// does not start with X.Y (a blank or nightly version).
std::optional<std::array<int, 3>> release_numbers(const std::string& version) {
  std::array<int, 3> v{0, 0, 0};
  const char* digits = version.c_str() + (version.starts_with("v") ? 1 : 0);
  if (std::sscanf(digits, "%d.%d.%d", &v[0], &v[1], &v[2]) < 2) return std::nullopt;
  return v;
}

// Whether a version is at least major.minor; false for one without release numbers.
bool version_at_least(const std::string& version, int major, int minor) {
  const auto v = release_numbers(version);
  return v && std::array<int, 2>{(*v)[0], (*v)[1]} >= std::array<int, 2>{major, minor};
}

// Whether a version is below major.minor.patch; false for one without release numbers (a nightly counts as current).
bool version_below(const std::string& version, int major, int minor, int patch) {
  const auto v = release_numbers(version);
  return v && *v < std::array<int, 3>{major, minor, patch};
}

// SGLang's --mem-fraction-static where the launcher gave none: the rule of the row's release (a blank or nightly
// version, the current one), for the GPU's device memory, the layout, the chunk and the CUDA graphs it ran.
double sglang_row_mem_fraction(const traces::MeasuredServingRun& run, const specs::HardwareSpec& hw,
                               const nlohmann::json& replica, int chunk_tokens) {
  const specs::ReplicaLayout layout{replica.value("tp", 1), replica.value("pp", 1), replica.value("ep", 1),
                                    replica.value("dp", 1)};
  simulator::SglangServerMemory server = simulator::sglang_server_memory(hw, layout, chunk_tokens, false);
  server.cuda_graph_max_bs = run.server_cuda_graph_max_bs;
  return simulator::sglang_default_mem_fraction(server, version_below(run.backend_version, 0, 5, 3)
                                                            ? simulator::SglangMemoryRule::by_gpu_bucket
                                                            : simulator::SglangMemoryRule::by_reserve);
}

nlohmann::json scheduler_for(const traces::MeasuredServingRun& run, int batch_size, const nlohmann::json& replica,
                             const specs::HardwareSpec& hw) {
  const std::string& backend = run.backend;
  const int attention_dp = replica.value("dp", 1);
  const double hbm_gb = hw.hbm_gb;
  // max_num_seqs caps each attention-DP rank's batch; SGLang gives each rank max_running_requests / dp
  // (ModelRunner.max_running_requests).
  int max_running = run.server_max_running;
  if (backend == "sglang" && attention_dp > 1)
    max_running = std::max(max_running / attention_dp, max_running > 0 ? 1 : 0);
  nlohmann::json s = {{"policy", backend},
                      {"max_num_seqs", max_running > 0 ? std::min(batch_size, max_running) : batch_size}};
  if (backend == "sglang") {
    s["max_num_batched_tokens"] = 16384;
    s["chunk_tokens"] = hbm_gb < 160.0 ? 8192 : 16384;
  } else if (backend == "atom") {
    s["max_num_batched_tokens"] = 16384;  // whole prompts: the atom policy's own default (specs)
  } else if (backend == "vllm" && version_at_least(run.backend_version, 0, 28) &&
             hbm_gb * 1e9 / 1073741824.0 >= 160.0) {
    s["max_num_batched_tokens"] = 16384;
  } else {
    s["max_num_batched_tokens"] = 8192;
  }
  if (run.server_max_num_tokens > 0) s["max_num_batched_tokens"] = run.server_max_num_tokens;
  if (run.server_chunk_tokens > 0) s["chunk_tokens"] = run.server_chunk_tokens;
  if (run.server_gpu_memory_utilization > 0.0) {
    s["gpu_memory_utilization"] = run.server_gpu_memory_utilization;
  } else if (backend == "sglang") {
    s["gpu_memory_utilization"] = sglang_row_mem_fraction(run, hw, replica, s["chunk_tokens"].get<int>());
  }
  if (run.server_kv_block_tokens > 0) s["kv_block_tokens"] = run.server_kv_block_tokens;
  if (run.server_free_gpu_memory_fraction > 0.0 && backend == "trtllm")
    s["free_gpu_memory_fraction"] = run.server_free_gpu_memory_fraction;
  if (run.server_whole_prompts) s["chunked_prefill"] = false;
  if (run.server_mixed_chunk) s["mixed_chunk"] = true;
  if (run.server_recv_interval > 1) s["recv_interval"] = run.server_recv_interval;
  if (run.server_batch_wait_iters > 0) s["batch_wait_iters"] = run.server_batch_wait_iters;
  if (run.server_batch_wait_tokens_ratio > 0.0) s["batch_wait_tokens_ratio"] = run.server_batch_wait_tokens_ratio;
  if (run.server_prefill_delayer && backend == "sglang" && attention_dp > 1)
    s["prefill_delayer"] = {{"max_delay_passes", run.server_prefill_delayer_max_delay_passes}};
  if (run.server_adp_balance && attention_dp > 1) {
    s["attention_dp_balance"] = {{"timeout_iters", run.server_adp_timeout_iters},
                                 {"batching_wait_iters", run.server_adp_batching_wait_iters}};
  }
  return s;
}

int or_one(int v) { return v > 0 ? v : 1; }

struct Layout {
  nlohmann::json replica;
  int gpus = 0;
  std::string note;  // how the layout was read, where the columns needed reading
};

std::variant<Layout, Unmapped> replica_for(const traces::MeasuredLayout& l, bool moe, const std::string& what) {
  if (l.tp <= 0) return Unmapped{what + "tp_size is blank"};
  const int tp = l.tp, pp = or_one(l.pp);
  int dp = or_one(l.attention_dp);
  int ep = or_one(l.moe_ep);
  std::string note;
  if (moe && l.attention_dp <= 0 && l.moe_tp > 0 && l.moe_tp * ep > tp && l.moe_tp * ep % tp == 0) {
    // attention_dp_size blank, the experts on more GPUs than the attention's tp: the worker is moe_tp x moe_ep GPUs
    // with the attention data-parallel over them, as vLLM runs --data-parallel-size with the MoE layers' tensor
    // parallelism spanning dp x tp. aiconfigurator's gap analysis writes vLLM's Qwen3-235B-A22B FP8 runs so:
    // tp_size 1, moe_tp_size 2 or 4, ids "_tp1_", where 235 GB of FP8 weights cannot fit one H200 (141 GB), and the
    // TPOT follows moe_tp (tp 1 and tp 2 at moe_tp 2: 55-58 and 51-55 ms; tp 1, 2 and 4 at moe_tp 4: 34-45 ms).
    dp = l.moe_tp * ep / tp;
    note = what + "attention_dp_size blank: " + std::to_string(dp) + " from moe_tp_size " + std::to_string(l.moe_tp) +
           " x moe_ep_size " + std::to_string(ep) + " / tp_size " + std::to_string(tp);
  }
  if (!moe) {
    ep = 1;  // a dense model has no experts to spread
  } else if (l.moe_tp > 0 && l.moe_tp * ep != tp * dp) {
    return Unmapped{what + "moe_tp_size " + std::to_string(l.moe_tp) + " x moe_ep_size " + std::to_string(ep) +
                    " != tp_size " + std::to_string(tp) + " x attention_dp_size " + std::to_string(dp) +
                    ": the experts would not span the attention GPUs"};
  }
  return Layout{{{"tp", tp}, {"pp", pp}, {"ep", ep}, {"dp", dp}}, tp * pp * dp, note};
}

}  // namespace

std::string serving_run_group(const traces::MeasuredServingRun& run) {
  const CheckpointModel model = model_for_checkpoint(run.model_path);
  return group_key(model.preset.empty() ? model.name : model.preset, run);
}

std::vector<std::string> serving_group_parts(const std::string& group) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t bar = group.find(" | ", start);
    parts.push_back(group.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) return parts;
    start = bar + 3;
  }
}

long requests_for_clients(int clients) {
  // Five waves of every client, at least 64 requests, of which the scenario's default window measures the
  // middle 80% of arrivals. That window does not start after the first wave (whose prompts all arrive at once):
  // from 7 clients up it starts inside it (at its half from 13 up), keeping the requests served last. Leaving
  // the whole wave out was tried and not shipped: the rows do not say which benchmark measured them, nor whether
  // it counted the burst (docs/ACCURACY.md, "Where the simulated closed-loop TTFT comes from").
  return std::max<long>(64, 5L * clients);
}

std::variant<MappedRun, Unmapped> map_serving_run(const traces::MeasuredServingRun& run) {
  using specs::PresetKind;
  const CheckpointModel checkpoint = model_for_checkpoint(run.model_path);
  if (checkpoint.preset.empty()) {
    return Unmapped{"model_path " + run.model_path + ": no model preset " + checkpoint.name};
  }
  const std::string& model_name = checkpoint.preset;
  const std::string hw_name = hardware_preset_name(run.system);
  if (!specs::has_preset(PresetKind::hardware, hw_name)) {
    return Unmapped{"system " + run.system + ": no hardware preset " + hw_name};
  }
  if (run.backend != "vllm" && run.backend != "sglang" && run.backend != "trtllm" && run.backend != "atom") {
    return Unmapped{"backend " + run.backend + ": no scheduler model (vllm, sglang, trtllm, atom)"};
  }
  if (run.request_rate_per_s > 0.0 && run.concurrency > 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%g", run.request_rate_per_s);
    return Unmapped{std::string("request_rate ") + rate + " with max_concurrency " + std::to_string(run.concurrency) +
                    ": open-loop arrivals held back by a client cap are not modelled"};
  }
  std::string notes;
  auto note = [&](const std::string& n) { notes += (notes.empty() ? "" : "; ") + n; };
  if (!checkpoint.note.empty()) note(checkpoint.note);

  nlohmann::json model = specs::preset_json(PresetKind::model, model_name);
  const bool moe = !model["moe"].is_null();
  const auto speculative = speculative_for_run(run, model_name, model.value("mtp_layers", 0), notes);
  if (const auto* u = std::get_if<Unmapped>(&speculative)) return *u;
  // A blank precision with no quant modes takes the one the checkpoint's name states (a benchmark file names only
  // the checkpoint: nvidia/DeepSeek-R1-0528-FP4-v2 is NVFP4, not the preset's FP8).
  const bool name_says = run.precision.empty() && run.gemm_quant_mode.empty() && run.moe_quant_mode.empty() &&
                         !checkpoint.quant_mode.empty();
  if (name_says) note("precision " + checkpoint.quant_mode + ": the checkpoint's name");
  const std::string fallback =
      name_says ? precision_of(checkpoint.quant_mode) : precision_of(run.precision == "fp4" ? "nvfp4" : run.precision);
  const std::string weights = precision_of(run.gemm_quant_mode).empty() ? fallback : precision_of(run.gemm_quant_mode);
  const std::string experts = precision_of(run.moe_quant_mode).empty() ? fallback : precision_of(run.moe_quant_mode);
  // A checkpoint published with MXFP4 experts (gpt-oss: MXFP4 experts, every other weight BF16) is served as
  // published: none of the three runtimes re-quantises it to NVFP4, so a 4-bit label on it names the checkpoint's
  // own formats, which the preset holds.
  const auto is_four_bit = [](const std::string& p) { return p == "nvfp4" || p == "fp4" || p == "int4"; };
  const bool four_bit = is_four_bit(weights) || is_four_bit(experts);
  // An INT4 label on a checkpoint published with INT4 experts (Kimi-K2.5) is that checkpoint too; an NVFP4 one on it
  // is a re-quantised checkpoint (nvidia/Kimi-K2.5-NVFP4) and is taken as labelled.
  const std::string published_experts = model["precision"].value("experts", "");
  const bool as_published = (four_bit && published_experts == "fp4") ||
                            (published_experts == "int4" && (weights == "int4" || experts == "int4"));
  if (as_published) note("4-bit label on a checkpoint published with 4-bit experts: the preset's precisions");
  for (const auto& [field, value] : {std::pair{"weights", weights}, std::pair{"experts", experts}}) {
    if (!value.empty() && value[0] == '?') return Unmapped{"quant mode " + value.substr(1) + ": not a known precision"};
    if (!value.empty() && !as_published) model["precision"][field] = value;
  }
  if (const std::string in = inputs_of(run.moe_quant_mode); moe && !in.empty()) {
    model["precision"]["expert_inputs"] = in;
    note("experts' activations in " + in + " (moe_quant_mode " + run.moe_quant_mode + ")");
  }
  if (weights.empty() && experts.empty()) note("precision blank: the preset's");
  // Quantized runs keep their KV cache in FP8 (TensorRT-LLM's ModelOpt checkpoints set kv_cache_quant_algo FP8;
  // vLLM and SGLang take --kv-cache-dtype fp8). The rows show it: Llama-3.1-70B FP8 on one H200 under vLLM
  // serves 32 clients of 8192+1024 tokens with a 3.1 s TTFT and 64 with 39.8 s, the step a KV cache of
  // ~57 GB makes at 8 bit (337k tokens: 32 x 9216 fit, 64 do not); at 16 bit already 32 would queue.
  const bool quantized = weights == "fp8" || weights == "nvfp4" || weights == "fp4" || experts == "fp8" ||
                         experts == "nvfp4" || experts == "fp4";
  // The preset's note on its KV dtype gives way to what the mapping chose, so that the scenario says why.
  if (quantized) {
    model["precision"]["kv_cache"] = "fp8";
    model["assumed"]["precision.kv_cache"] =
        "fp8: a quantized run keeps its KV cache in FP8 (the rows do not record it)";
  }
  if (!run.server_kv_cache.empty()) {
    model["precision"]["kv_cache"] = run.server_kv_cache;
    model["assumed"]["precision.kv_cache"] =
        run.server_kv_cache + ": as the launcher starts the server (the row's notes)";
  }
  // Top-k reuse: the sparse layers from the first on, every freq-th running the indexer (anchored at the first).
  if (run.server_index_topk_freq > 1 && model["attention"].contains("sparse_layers")) {
    const int sparse = model["attention"]["sparse_layers"];
    model["attention"]["indexer_layers"] = (sparse + run.server_index_topk_freq - 1) / run.server_index_topk_freq;
  }

  const specs::HardwareSpec hw = specs::hardware_preset(hw_name);
  nlohmann::json deployment = {{"name", run.id}, {"hardware", hw_name}, {"runtime", run.backend}};
  int clients = run.concurrency;
  if (run.mode == "agg") {
    auto layout = replica_for(run.agg, moe, "");
    if (auto* u = std::get_if<Unmapped>(&layout)) return *u;
    const Layout& l = std::get<Layout>(layout);
    if (!l.note.empty()) note(l.note);
    // A benchmark file that gives no max_num_seqs ran the engine's own cap for the GPU, as a deployment spec that
    // leaves it out does; a CSV row's batch_size is its per-worker batch and must be given.
    int batch_size = run.agg.batch_size;
    if (batch_size <= 0 && run.num_requests > 0) {
      batch_size = specs::engine_scheduler_defaults(run.backend, hw_name).max_num_seqs;
      note("max_num_seqs " + std::to_string(batch_size) + ": " + run.backend + "'s default on " + hw_name);
    }
    if (batch_size <= 0) return Unmapped{"batch_size is blank"};
    // A CSV row's batch_size is the batch of one worker (aiconfigurator's per-replica batch): where the row's
    // concurrency is a whole multiple of batch_size x attention_dp_size, the benchmark drove that many
    // identical workers behind one router (Dynamo's frontend, round-robin by default), e.g. 448 clients of
    // 15,000-token prompts over TP2 workers of batch 14 on GB200: 32 workers, where one would need ~910 GB of
    // KV cache. A benchmark file's batch_size is instead the engine's max_num_seqs cap (clients above it queue
    // in that one engine), so this holds for CSV rows only (num_requests 0).
    const int per_worker = batch_size * or_one(run.agg.attention_dp);
    int workers = 1;
    if (run.num_requests == 0 && clients > per_worker) {
      if (clients % per_worker != 0) {
        return Unmapped{"concurrency " + std::to_string(clients) + " is not a whole number of workers of batch_size " +
                        std::to_string(batch_size) + " x attention_dp_size " +
                        std::to_string(or_one(run.agg.attention_dp))};
      }
      workers = clients / per_worker;
      note(std::to_string(workers) + " workers: concurrency / (batch_size x attention_dp_size)");
    }
    // Each worker's GPUs as one "node" unless a worker spans several of the hardware's nodes.
    const int per_node = l.gpus <= hw.gpus_per_node ? l.gpus : hw.gpus_per_node;
    if (l.gpus % per_node != 0) {
      return Unmapped{std::to_string(l.gpus) + " GPUs are not whole " + hw_name + " nodes of " +
                      std::to_string(hw.gpus_per_node)};
    }
    deployment["nodes"] = workers * l.gpus / per_node;
    deployment["gpus_per_node"] = per_node;
    deployment["replica"] = l.replica;
    deployment["scheduler"] = scheduler_for(run, batch_size, l.replica, hw);
    if (clients <= 0 && run.request_rate_per_s <= 0.0) {
      clients = batch_size * or_one(run.agg.attention_dp);
      note("concurrency from batch_size x attention_dp_size");
    }
  } else if (run.mode == "disagg") {
    auto prefill = replica_for(run.prefill, moe, "prefill_");
    if (auto* u = std::get_if<Unmapped>(&prefill)) return *u;
    auto decode = replica_for(run.decode, moe, "decode_");
    if (auto* u = std::get_if<Unmapped>(&decode)) return *u;
    const Layout& p = std::get<Layout>(prefill);
    const Layout& d = std::get<Layout>(decode);
    for (const Layout* pool : {&p, &d}) {
      if (!pool->note.empty()) note(pool->note);
    }
    traces::MeasuredLayout pre = run.prefill, dec = run.decode;
    const bool blanks = pre.num_workers <= 0 || dec.num_workers <= 0 || pre.batch_size <= 0 || dec.batch_size <= 0;
    if (blanks && run.concurrency == 1 && run.request_rate_per_s <= 0.0) {
      // One client has one request in flight: one prefill worker, then one decode worker, serve it whatever the
      // pools' sizes and batch caps, so the blanks cannot change the result.
      for (traces::MeasuredLayout* l : {&pre, &dec}) {
        l->num_workers = std::max(l->num_workers, 1);
        l->batch_size = std::max(l->batch_size, 1);
      }
      note("one client: one prefill and one decode worker serve it (worker counts or batch sizes blank)");
    }
    // Above one client the worker counts set how many prompts prefill side by side and how the decode batch
    // splits, and the batch sizes cap each worker: a guess there would be a fitted parameter.
    if (pre.num_workers <= 0 || dec.num_workers <= 0) {
      return Unmapped{"num_workers is blank: how many prefill and decode workers served the clients is not given"};
    }
    if (pre.batch_size <= 0 || dec.batch_size <= 0) return Unmapped{"pool batch_size is blank"};
    // Both pools' workers must be whole "nodes" of one size: the largest size dividing both workers' GPU
    // counts and the hardware's node.
    int per_node = std::gcd(std::gcd(p.gpus, d.gpus), hw.gpus_per_node);
    const int prefill_gpus = p.gpus * pre.num_workers, decode_gpus = d.gpus * dec.num_workers;
    deployment["gpus_per_node"] = per_node;
    deployment["nodes"] = (prefill_gpus + decode_gpus) / per_node;
    deployment["disaggregation"] = {{"prefill",
                                     {{"nodes", prefill_gpus / per_node},
                                      {"replica", p.replica},
                                      {"scheduler", scheduler_for(run, pre.batch_size, p.replica, hw)}}},
                                    {"decode",
                                     {{"nodes", decode_gpus / per_node},
                                      {"replica", d.replica},
                                      {"scheduler", scheduler_for(run, dec.batch_size, d.replica, hw)}}}};
    if (clients <= 0 && run.request_rate_per_s <= 0.0) {
      clients = dec.batch_size * or_one(dec.attention_dp) * dec.num_workers;
      note("concurrency from decode batch_size x attention_dp_size x num_workers");
    }
  } else {
    return Unmapped{"mode " + run.mode + ": neither agg nor disagg"};
  }
  if (const auto& spec = std::get<nlohmann::json>(speculative); !spec.is_null()) deployment["speculative"] = spec;

  nlohmann::json arrival = {{"kind", "closed_loop"}, {"clients", clients}};
  if (run.request_rate_per_s > 0.0) {
    // vLLM's gaps are gamma draws of shape `burstiness` (vllm/benchmarks/serve.py, get_request): CV 1/sqrt(shape).
    arrival = run.burstiness == 1.0 ? nlohmann::json{{"kind", "poisson"}, {"rate_per_s", run.request_rate_per_s}}
                                    : nlohmann::json{{"kind", "gamma"},
                                                     {"rate_per_s", run.request_rate_per_s},
                                                     {"cv", 1.0 / std::sqrt(run.burstiness)}};
  }
  const bool spread = run.length_range_ratio < 1.0 && run.input_lens.empty();
  auto lengths = [&](const std::vector<int>& values, int nominal) {
    if (!values.empty()) return nlohmann::json{{"kind", "empirical"}, {"values", values}};
    if (!spread) return nlohmann::json{{"kind", "fixed"}, {"value", nominal}};
    return nlohmann::json{
        {"kind", "uniform"}, {"min", traces::shortest_drawn_length(nominal, run.length_range_ratio)}, {"max", nominal}};
  };
  if (!run.input_lens.empty()) note("input and output lengths drawn independently from the file's lists");
  if (spread) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%g", run.length_range_ratio);
    note(std::string("lengths uniform from ") + ratio + " x to 1 x isl and osl, as the benchmark client drew them");
  }
  nlohmann::json workload = {{"name", run.request_rate_per_s > 0.0 ? "open loop" : "closed loop"},
                             {"arrival", arrival},
                             {"input_tokens", lengths(run.input_lens, run.isl)},
                             {"output_tokens", lengths(run.output_lens, run.osl)}};
  // A benchmark file says how many requests it sent and averages over all of them, the first wave included; a row
  // whose client is known is simulated as that client ran, its warm-up sent and left out; for any other CSV row
  // enough waves are simulated to measure past the first.
  const long warmup =
      run.warmup_requests > 0 ? run.warmup_requests : static_cast<long>(run.warmup_requests_per_client) * clients;
  const long requests = run.num_requests > 0          ? run.num_requests
                        : run.requests_per_client > 0 ? warmup + static_cast<long>(run.requests_per_client) * clients
                                                      : requests_for_clients(clients);
  nlohmann::json scenario = {{"name", run.id},       {"model", model}, {"deployment", deployment},
                             {"workload", workload}, {"seed", 1},      {"num_requests", requests}};
  if (run.num_requests > 0 || run.requests_per_client > 0) {
    // The half request keeps floor(fraction x requests) at the warm-up count whatever the rounding.
    const double warmup_fraction =
        warmup > 0 ? (static_cast<double>(warmup) + 0.5) / static_cast<double>(requests) : 0.0;
    scenario["measurement"] = {{"warmup_fraction", warmup_fraction}, {"cooldown_fraction", 0.0}};
  }
  if (run.warmup_requests > 0) {
    note(std::to_string(run.warmup_requests) + " warm-up requests sent first and left out of the means");
  }
  if (run.requests_per_client > 0) {
    note((warmup > 0 ? std::to_string(run.warmup_requests_per_client) + " warm-up and " : std::string()) +
         std::to_string(run.requests_per_client) + " measured requests per client");
  }
  if (!run.notes.empty()) note(run.notes);
  return MappedRun{std::move(scenario), group_key(model_name, run), notes};
}

}  // namespace fleetcast::validation
