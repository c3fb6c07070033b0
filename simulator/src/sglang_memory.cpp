#include "fleetcast/simulator/sglang_memory.hpp"

#include <algorithm>
#include <cmath>

#include "fleetcast/specs/sglang_defaults.hpp"

namespace fleetcast::simulator {
namespace {

constexpr double kGiBInMiB = 1024.0;

// SGLang's CUDA-graph batch default by GPU memory (server_args._handle_gpu_memory_settings, 0.5.3 on), beside the
// chunk default (specs/sglang_defaults.hpp).
int default_cuda_graph_max_bs(double gpu_mib, int tp) {
  if (gpu_mib < 20 * kGiBInMiB) return 8;
  if (gpu_mib < 35 * kGiBInMiB) return tp < 4 ? 16 : 80;
  if (gpu_mib < 60 * kGiBInMiB) return tp < 4 ? 32 : 160;
  if (gpu_mib < 160 * kGiBInMiB) return tp < 4 ? 256 : 512;
  return 512;
}

// Up to 0.5.2: a reserve per GPU bucket in GiB, growing with tp x pp on the smaller GPUs.
double reserve_by_gpu_bucket_mib(const SglangServerMemory& s) {
  const double parallel = static_cast<double>(s.tp) * s.pp;
  const double gpu = s.gpu_memory_mib;
  double reserve_gib = 32.0;  // B200, MI300
  if (gpu < 35 * kGiBInMiB) {
    reserve_gib = 2.8 + parallel / 10.0;  // T4, 4080, A10, L40, 4090
  } else if (gpu < 90 * kGiBInMiB) {
    reserve_gib = 9.5 + parallel / 2.0;  // H100, A100
  } else if (gpu < 160 * kGiBInMiB) {
    reserve_gib = 12.0 + parallel / 2.0;  // H20, H200
  }
  if (s.draft_model) reserve_gib += 2.0;
  if (s.dp_attention > 1) reserve_gib += 4.0;
  return reserve_gib * kGiBInMiB;
}

// 0.5.3 on: MiB for the attention backend's metadata, 1.5 MiB per token of the largest prefill chunk, 2 MiB per
// CUDA-graph batch slot (3 more per slot and DP rank with attention DP, 1.5 more above 300 slots), 1 GiB per 8 GPUs
// of tp x pp; at least 10 GiB on GPUs above 60 GiB; 2 GiB more for a draft model.
double reserve_by_parts_mib(const SglangServerMemory& s) {
  const int chunk = s.chunked_prefill_tokens > 0 ? s.chunked_prefill_tokens
                                                 : specs::sglang_chunked_prefill_tokens(s.gpu_memory_mib / kGiBInMiB);
  const int graphs = s.cuda_graph_max_bs > 0 ? s.cuda_graph_max_bs : default_cuda_graph_max_bs(s.gpu_memory_mib, s.tp);
  double reserve = 512.0 + std::max(chunk, 2048) * 1.5 + graphs * 2.0 + s.tp * s.pp / 8.0 * kGiBInMiB;
  if (s.dp_attention > 1) {
    reserve += graphs * s.dp_attention * 3.0;
    if (graphs > 300) reserve += graphs * s.dp_attention * 1.5;
  }
  if (s.gpu_memory_mib > 60 * kGiBInMiB) reserve = std::max(reserve, 10 * kGiBInMiB);
  if (s.draft_model) reserve += 2 * kGiBInMiB;
  return reserve;
}

}  // namespace

double sglang_default_mem_fraction(const SglangServerMemory& server, SglangMemoryRule rule) {
  const double reserve =
      rule == SglangMemoryRule::by_gpu_bucket ? reserve_by_gpu_bucket_mib(server) : reserve_by_parts_mib(server);
  return std::round((server.gpu_memory_mib - reserve) / server.gpu_memory_mib * 1000.0) / 1000.0;
}

SglangServerMemory sglang_server_memory(const specs::HardwareSpec& hw, const specs::ReplicaLayout& layout,
                                        int chunked_prefill_tokens, bool draft_model) {
  SglangServerMemory s;
  s.gpu_memory_mib = hw.hbm_bytes() / (1024.0 * 1024.0);
  s.tp = layout.tp * layout.dp;  // SGLang's tp_size spans its attention-DP ranks
  s.pp = layout.pp;
  s.dp_attention = layout.dp;
  s.chunked_prefill_tokens = chunked_prefill_tokens;
  s.draft_model = draft_model;
  return s;
}

SglangServerMemory sglang_server_memory(const specs::DeploymentSpec& d) {
  const int chunk = d.scheduler.chunked_prefill ? d.scheduler.chunk_limit() : d.scheduler.max_num_batched_tokens;
  return sglang_server_memory(d.hardware, d.replica, chunk, d.speculative.has_value());
}

double memory_fraction(const specs::DeploymentSpec& d) {
  if (d.scheduler.gpu_memory_utilization > 0.0) return d.scheduler.gpu_memory_utilization;
  if (d.scheduler.policy == specs::SchedulerPolicy::sglang)
    return sglang_default_mem_fraction(sglang_server_memory(d), SglangMemoryRule::by_reserve);
  return 0.9;
}

}  // namespace fleetcast::simulator
