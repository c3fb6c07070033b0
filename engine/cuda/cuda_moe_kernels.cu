// The MoE kernels. Correct first: routing is one thread per token (top_k passes of arg-max over at most
// 512 experts), the permutation's bookkeeping one block with a thread per expert (each scans the slots in
// token order, so the order within an expert is the token order on every run), the row gather and the
// weighted combine one block per row or token.

#include <cuda_bf16.h>

#include "cuda_check.hpp"
#include "cuda_moe_kernels.hpp"
#include "element_convert.cuh"

namespace fleetcast::engine::cuda {
namespace {

// The best allowed expert not yet taken: greater score first, the lower index on a tie.
__device__ inline int arg_max(const float* score, const bool* blocked, int count) {
  int best = -1;
  for (int e = 0; e < count; ++e)
    if (!blocked[e] && (best < 0 || score[e] > score[best])) best = e;
  return best;
}

template <class T>
__global__ void routing_kernel(const T* logits, std::int32_t* ids, float* weights, std::int64_t tokens, int experts,
                               int top_k, int n_group, int topk_group, bool sigmoid) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (t >= tokens) return;
  const T* l = logits + t * experts;
  float score[kMaxRoutedExperts];
  bool blocked[kMaxRoutedExperts];
  if (sigmoid) {
    for (int e = 0; e < experts; ++e) score[e] = 1.0f / (1.0f + expf(-to_float(l[e])));
  } else {
    float m = to_float(l[0]);
    for (int e = 1; e < experts; ++e) m = fmaxf(m, to_float(l[e]));
    float sum = 0.0f;
    for (int e = 0; e < experts; ++e) sum += score[e] = expf(to_float(l[e]) - m);
    const float inv = 1.0f / sum;
    for (int e = 0; e < experts; ++e) score[e] *= inv;
  }
  for (int e = 0; e < experts; ++e) blocked[e] = false;
  if (n_group > 1) {
    const int size = experts / n_group;
    float group_score[kMaxExpertGroups];
    bool group_taken[kMaxExpertGroups];
    for (int g = 0; g < n_group; ++g) {
      float best = -INFINITY, second = -INFINITY;
      for (int e = g * size; e < (g + 1) * size; ++e) {
        if (score[e] > best) {
          second = best;
          best = score[e];
        } else if (score[e] > second) {
          second = score[e];
        }
      }
      group_score[g] = sigmoid ? best + (size > 1 ? second : 0.0f) : best;
      group_taken[g] = false;
    }
    for (int i = 0; i < topk_group; ++i) group_taken[arg_max(group_score, group_taken, n_group)] = true;
    for (int e = 0; e < experts; ++e) blocked[e] = !group_taken[e / size];
  }
  float sum = 0.0f;
  for (int i = 0; i < top_k; ++i) {
    const int e = arg_max(score, blocked, experts);
    blocked[e] = true;
    ids[t * top_k + i] = e;
    weights[t * top_k + i] = score[e];
    sum += score[e];
  }
  for (int i = 0; i < top_k; ++i) weights[t * top_k + i] /= sum;
}

// One block; thread e (and e + blockDim.x, ...) owns local expert e. offsets lives in shared memory while
// the prefix sum runs: at most kMaxRoutedExperts + 1 entries.
__global__ void permute_index_kernel(const std::int32_t* ids, std::int32_t* offsets, std::int32_t* source_slot,
                                     std::int32_t* dest_row, std::int64_t slots, int first_expert, int local_experts) {
  __shared__ std::int32_t start[kMaxRoutedExperts + 1];
  for (int e = threadIdx.x; e < local_experts; e += blockDim.x) {
    std::int32_t n = 0;
    for (std::int64_t s = 0; s < slots; ++s) n += ids[s] == first_expert + e;
    start[e + 1] = n;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    start[0] = 0;
    for (int e = 0; e < local_experts; ++e) start[e + 1] += start[e];
  }
  __syncthreads();
  for (int e = threadIdx.x; e <= local_experts; e += blockDim.x) offsets[e] = start[e];
  for (std::int64_t s = threadIdx.x; s < slots; s += blockDim.x) {
    const int e = ids[s] - first_expert;
    if (e < 0 || e >= local_experts) dest_row[s] = -1;
  }
  for (int e = threadIdx.x; e < local_experts; e += blockDim.x) {
    std::int32_t row = start[e];
    for (std::int64_t s = 0; s < slots; ++s) {
      if (ids[s] == first_expert + e) {
        source_slot[row] = static_cast<std::int32_t>(s);
        dest_row[s] = row++;
      }
    }
  }
}

template <class T>
__global__ void gather_rows_kernel(const T* x, const std::int32_t* source_slot, const std::int32_t* rows_total,
                                   T* permuted, std::int64_t hidden, int top_k) {
  const std::int64_t row = blockIdx.x;
  if (row >= *rows_total) return;
  const T* src = x + (source_slot[row] / top_k) * hidden;
  T* dst = permuted + row * hidden;
  for (std::int64_t i = threadIdx.x; i < hidden; i += blockDim.x) dst[i] = src[i];
}

template <class T>
__global__ void unpermute_kernel(const T* expert_out, const float* weights, const std::int32_t* dest_row, T* y,
                                 std::int64_t hidden, int top_k) {
  const std::int64_t t = blockIdx.x;
  for (std::int64_t i = threadIdx.x; i < hidden; i += blockDim.x) {
    float acc = 0.0f;
    for (int s = 0; s < top_k; ++s) {
      const std::int32_t row = dest_row[t * top_k + s];
      if (row >= 0) acc += weights[t * top_k + s] * to_float(expert_out[row * hidden + i]);
    }
    y[t * hidden + i] = from_float<T>(acc);
  }
}

unsigned blocks_for(std::int64_t n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

}  // namespace

void moe_routing(const void* logits, Storage s, std::int32_t* ids, float* weights, std::int64_t tokens,
                 std::int64_t experts, std::int64_t top_k, std::int64_t n_group, std::int64_t topk_group, bool sigmoid,
                 cudaStream_t stream) {
  if (tokens == 0) return;
  const auto e = static_cast<int>(experts), k = static_cast<int>(top_k), g = static_cast<int>(n_group),
             kg = static_cast<int>(topk_group);
  if (s == Storage::bf16) {
    routing_kernel<<<blocks_for(tokens, 128), 128, 0, stream>>>(static_cast<const __nv_bfloat16*>(logits), ids, weights,
                                                                tokens, e, k, g, kg, sigmoid);
  } else {
    routing_kernel<<<blocks_for(tokens, 128), 128, 0, stream>>>(static_cast<const float*>(logits), ids, weights, tokens,
                                                                e, k, g, kg, sigmoid);
  }
  CUDA_CHECK_LAUNCH();
}

void moe_permute(const void* x, Storage s, const std::int32_t* ids, void* permuted, std::int32_t* offsets,
                 std::int32_t* source_slot, std::int32_t* dest_row, std::int64_t tokens, std::int64_t hidden,
                 std::int64_t top_k, std::int64_t first_expert, std::int64_t local_experts, cudaStream_t stream) {
  const std::int64_t slots = tokens * top_k;
  if (slots == 0) return;
  permute_index_kernel<<<1, 512, 0, stream>>>(ids, offsets, source_slot, dest_row, slots,
                                              static_cast<int>(first_expert), static_cast<int>(local_experts));
  CUDA_CHECK_LAUNCH();
  const std::int32_t* rows_total = offsets + local_experts;
  if (s == Storage::bf16) {
    gather_rows_kernel<<<static_cast<unsigned>(slots), 256, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(x), source_slot, rows_total, static_cast<__nv_bfloat16*>(permuted), hidden,
        static_cast<int>(top_k));
  } else {
    gather_rows_kernel<<<static_cast<unsigned>(slots), 256, 0, stream>>>(static_cast<const float*>(x), source_slot,
                                                                         rows_total, static_cast<float*>(permuted),
                                                                         hidden, static_cast<int>(top_k));
  }
  CUDA_CHECK_LAUNCH();
}

void moe_unpermute(const void* expert_out, Storage s, const float* weights, const std::int32_t* dest_row, void* y,
                   std::int64_t tokens, std::int64_t hidden, std::int64_t top_k, cudaStream_t stream) {
  if (tokens == 0) return;
  if (s == Storage::bf16) {
    unpermute_kernel<<<static_cast<unsigned>(tokens), 256, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(expert_out), weights, dest_row, static_cast<__nv_bfloat16*>(y), hidden,
        static_cast<int>(top_k));
  } else {
    unpermute_kernel<<<static_cast<unsigned>(tokens), 256, 0, stream>>>(static_cast<const float*>(expert_out), weights,
                                                                        dest_row, static_cast<float*>(y), hidden,
                                                                        static_cast<int>(top_k));
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace fleetcast::engine::cuda
