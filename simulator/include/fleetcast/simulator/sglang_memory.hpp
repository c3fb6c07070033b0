#pragma once
// SGLang's --mem-fraction-static when its launcher gives none: SGLang computes one from the GPU's memory and the
// server's settings (python/sglang/srt/server_args.py). The fraction holds the weights and the KV cache; what it
// leaves is for activations, CUDA graphs and the attention backend's buffers, so it is set to leave enough for them.

#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::simulator {

// Which release's rule: up to 0.5.2 a reserve by GPU-memory bucket; from 0.5.3 on (sgl-project/sglang #10975) one
// that adds up the chunked prefill's activations, the CUDA graphs and the parallel size.
enum class SglangMemoryRule { by_gpu_bucket, by_reserve };

struct SglangServerMemory {
  double gpu_memory_mib = 0.0;  // the device's total memory
  int tp = 1;                   // SGLang's --tp-size: every GPU of a pipeline stage, attention-DP ranks included
  int pp = 1;
  int dp_attention = 1;            // > 1: --enable-dp-attention over that many ranks
  int chunked_prefill_tokens = 0;  // --chunked-prefill-size (--max-prefill-tokens without chunking); 0: the GPU's
  int cuda_graph_max_bs = 0;       // the largest CUDA-graph batch; 0: SGLang's default for the GPU and tp
  bool draft_model = false;        // speculative decoding with a draft (EAGLE, MTP): its weights and graphs
};

// The fraction SGLang sets, rounded to three decimals as it rounds it.
double sglang_default_mem_fraction(const SglangServerMemory& server, SglangMemoryRule rule);

// The server SGLang runs on this GPU and layout with this chunk (--max-prefill-tokens without chunking), its CUDA
// graphs at their default: tp_size spans the attention-DP ranks.
SglangServerMemory sglang_server_memory(const specs::HardwareSpec& hw, const specs::ReplicaLayout& layout,
                                        int chunked_prefill_tokens, bool draft_model);
// The server a deployment describes.
SglangServerMemory sglang_server_memory(const specs::DeploymentSpec& deployment);

// The share of the device memory a deployment's engine gives weights and KV cache: the scheduler's
// gpu_memory_utilization, or where it is left to the policy (< 0) SGLang's current rule under sglang, 0.9 otherwise.
double memory_fraction(const specs::DeploymentSpec& deployment);

}  // namespace fleetcast::simulator
