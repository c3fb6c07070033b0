// Attention kernels: paged decode (split over the context, flash-decoding style, then a combine) and
// causal prefill (tiled, online softmax). Decode and the general prefill are plain CUDA-core code in fp32
// arithmetic: correct first, and their share of peak is reported as measured (README), not assumed. The bf16
// prefill at head_dim 64 and 128 has a tensor-core (WMMA) variant in attention_prefill_tc.cu.

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "attention_kernels.hpp"
#include "cuda_check.hpp"
#include "element_convert.cuh"
#include "kernel_support.cuh"

namespace fleetcast::engine::cuda {
namespace {

constexpr int kDecodeThreads = 256;
constexpr int kDecodeTokens = 64;  // tokens scored per pass before their values are added

// Floats of a decode block's shared memory before its cache-entry indices, rounded up to keep them
// 8-byte aligned.
__host__ __device__ inline std::int64_t decode_float_count(int ht, std::int64_t dk, std::int64_t dv) {
  return (ht * dk + ht * dv + ht * kDecodeTokens + 3 * ht + 1) / 2 * 2;
}

// One block: sequence (or causal query row) b (blockIdx.z), context piece `split` (blockIdx.y), kv head h and a tile of
// up to HT of its query heads (blockIdx.x). Each pass scores kDecodeTokens tokens (a warp per token, lanes across the
// key, every head of the tile from the one key read), folds them into a running max and sum per head, then adds their
// values (threads across the value dims, every head of the tile from the one value read).
template <class QT, class KT, int HT>
__global__ void __launch_bounds__(kDecodeThreads) decode_kernel(DecodeArgs a) {
  extern __shared__ __align__(16) float smem[];
  const int dk = static_cast<int>(a.dk), dv = static_cast<int>(a.dv);
  float* q_s = smem;                      // [HT][dk], pre-scaled
  float* acc_s = q_s + HT * dk;           // [HT][dv]
  float* p_s = acc_s + HT * dv;           // [HT][kDecodeTokens]: scores, then weights
  float* m_s = p_s + HT * kDecodeTokens;  // [HT] running max
  float* l_s = m_s + HT;                  // [HT] running sum
  float* corr_s = l_s + HT;               // [HT] rescale of this pass
  auto* entry_s = reinterpret_cast<long long*>(smem + decode_float_count(HT, a.dk, a.dv));  // [kDecodeTokens]

  const std::int64_t group = a.q_heads / a.kv_heads;
  const std::int64_t tiles = (group + HT - 1) / HT;
  const std::int64_t h = blockIdx.x / tiles, tile = blockIdx.x % tiles, b = blockIdx.z;
  const int split = blockIdx.y;
  const std::int64_t head0 = h * group + tile * HT;
  const int nh = static_cast<int>(smaller(HT, group - tile * HT));
  // Pieces cut from the longest row's context; a causal row's shorter context leaves its last pieces empty
  // (the first never is: every row sees at least one token).
  const std::int64_t per_split = (a.context + a.splits - 1) / a.splits;
  const DecodeRow row = decode_row(a, b);
  const std::int64_t t_begin = split * per_split, t_end = smaller(row.context, t_begin + per_split);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const auto* q = static_cast<const QT*>(a.q);
  const auto* kc = static_cast<const KT*>(a.k_cache);
  const auto* vc = static_cast<const KT*>(a.v_cache != nullptr ? a.v_cache : a.k_cache);
  const std::int64_t v_entry = a.v_cache != nullptr ? a.dv : a.dk;

  for (int idx = tid; idx < HT * dk; idx += kDecodeThreads) {
    const int i = idx / dk, d = idx % dk;
    q_s[idx] = i < nh ? to_float(q[((b * a.q_heads) + head0 + i) * a.dk + d]) * a.scale : 0.0f;
  }
  for (int idx = tid; idx < HT * dv; idx += kDecodeThreads) acc_s[idx] = 0.0f;
  if (tid < HT) {
    m_s[tid] = -INFINITY;
    l_s[tid] = 0.0f;
  }
  __syncthreads();

  const std::int32_t* pages = a.block_table + row.seq * a.pages_per_seq;
  for (std::int64_t t0 = t_begin; t0 < t_end; t0 += kDecodeTokens) {
    const int n = static_cast<int>(smaller(kDecodeTokens, t_end - t0));
    for (int j = warp; j < n; j += kDecodeThreads / 32) {
      const std::int64_t t = t0 + j;
      const long long entry =
          (static_cast<long long>(pages[t / a.page_size]) * a.page_size + t % a.page_size) * a.kv_heads + h;
      const KT* key = kc + entry * a.dk;
      float partial[HT];
#pragma unroll
      for (int i = 0; i < HT; ++i) partial[i] = 0.0f;
      for (int d = lane; d < dk; d += 32) {
        const float kv = to_float(key[d]) * a.kv_scale;
#pragma unroll
        for (int i = 0; i < HT; ++i) partial[i] += q_s[i * dk + d] * kv;
      }
#pragma unroll
      for (int i = 0; i < HT; ++i)
        for (int o = 16; o > 0; o >>= 1) partial[i] += __shfl_xor_sync(0xffffffffu, partial[i], o);
      if (lane == 0) {
        entry_s[j] = entry;
#pragma unroll
        for (int i = 0; i < HT; ++i) p_s[i * kDecodeTokens + j] = partial[i];
      }
    }
    __syncthreads();
    if (tid < nh) {
      float* row = p_s + tid * kDecodeTokens;
      const float m_old = m_s[tid];
      float m_new = m_old;
      for (int j = 0; j < n; ++j) m_new = fmaxf(m_new, row[j]);
      float sum = 0.0f;
      for (int j = 0; j < n; ++j) sum += (row[j] = __expf(row[j] - m_new));
      const float corr = __expf(m_old - m_new);  // 0 on the first pass: m_old is -inf
      l_s[tid] = l_s[tid] * corr + sum;
      m_s[tid] = m_new;
      corr_s[tid] = corr;
    }
    __syncthreads();
    for (int d = tid; d < dv; d += kDecodeThreads) {
      float acc[HT];
#pragma unroll
      for (int i = 0; i < HT; ++i) acc[i] = i < nh ? acc_s[i * dv + d] * corr_s[i] : 0.0f;
      for (int j = 0; j < n; ++j) {
        const float v = to_float(vc[entry_s[j] * v_entry + d]) * a.kv_scale;
#pragma unroll
        for (int i = 0; i < HT; ++i) acc[i] += p_s[i * kDecodeTokens + j] * v;
      }
#pragma unroll
      for (int i = 0; i < HT; ++i) acc_s[i * dv + d] = acc[i];
    }
    __syncthreads();
  }

  for (int idx = tid; idx < nh * dv; idx += kDecodeThreads) {
    const int i = idx / dv, d = idx % dv;
    const std::int64_t head = head0 + i;
    const float l = l_s[i];
    const float o = l > 0.0f ? acc_s[i * dv + d] / l : 0.0f;  // an empty piece holds nothing
    if (a.splits == 1) {
      static_cast<QT*>(a.out)[(b * a.q_heads + head) * a.dv + d] = from_float<QT>(o);
    } else {
      a.partial_out[((b * a.q_heads + head) * a.splits + split) * a.dv + d] = o;
    }
  }
  if (a.splits > 1 && tid < nh)
    a.partial_lse[(b * a.q_heads + head0 + tid) * a.splits + split] =
        l_s[tid] > 0.0f ? m_s[tid] + logf(l_s[tid]) : -INFINITY;
}

// Merges the pieces of one (sequence, head): out = sum_s exp(lse_s - lse) o_s, lse = log sum_s exp(lse_s).
template <class QT>
__global__ void decode_combine_kernel(DecodeArgs a) {
  const std::int64_t head = blockIdx.x, b = blockIdx.y;
  const float* lse = a.partial_lse + (b * a.q_heads + head) * a.splits;
  float m = -INFINITY;
  for (int s = 0; s < a.splits; ++s) m = fmaxf(m, lse[s]);
  float total = 0.0f;
  for (int s = 0; s < a.splits; ++s) total += __expf(lse[s] - m);
  const float* o = a.partial_out + (b * a.q_heads + head) * a.splits * a.dv;
  for (std::int64_t d = threadIdx.x; d < a.dv; d += blockDim.x) {
    float acc = 0.0f;
    for (int s = 0; s < a.splits; ++s) acc += __expf(lse[s] - m) * o[s * a.dv + d];
    static_cast<QT*>(a.out)[(b * a.q_heads + head) * a.dv + d] = from_float<QT>(acc / total);
  }
}

template <class QT, class KT, int HT>
void launch_decode(const DecodeArgs& a, cudaStream_t stream) {
  const std::int64_t group = a.q_heads / a.kv_heads, tiles = (group + HT - 1) / HT;
  const std::size_t shared = decode_shared_bytes(group, a.dk, a.dv);
  allow_shared(decode_kernel<QT, KT, HT>, shared);
  const dim3 grid(static_cast<unsigned>(a.kv_heads * tiles), static_cast<unsigned>(a.splits),
                  static_cast<unsigned>(a.batch));
  decode_kernel<QT, KT, HT><<<grid, kDecodeThreads, shared, stream>>>(a);
  CUDA_CHECK_LAUNCH();
  if (a.splits > 1) {
    decode_combine_kernel<QT>
        <<<dim3(static_cast<unsigned>(a.q_heads), static_cast<unsigned>(a.batch)), 128, 0, stream>>>(a);
    CUDA_CHECK_LAUNCH();
  }
}

template <class QT, class KT>
void decode_typed(const DecodeArgs& a, cudaStream_t stream) {
  switch (decode_head_tile(a.q_heads / a.kv_heads)) {
    case 1:
      launch_decode<QT, KT, 1>(a, stream);
      break;
    case 4:
      launch_decode<QT, KT, 4>(a, stream);
      break;
    default:
      launch_decode<QT, KT, 8>(a, stream);
      break;
  }
}

constexpr int kPrefillQ = 32, kPrefillK = 32, kPrefillThreads = 128;  // 4 threads per query row

// One block: sequence b (blockIdx.z), query head (blockIdx.y), kPrefillQ query positions (blockIdx.x).
// Key tiles from the start of the sequence to the block's last query position are gathered from their
// pages into shared memory; the tile on the diagonal is masked. Rows padded to D + 1 floats so that the
// 8 rows a warp touches fall in different banks.
template <class T, class KT>
__global__ void __launch_bounds__(kPrefillThreads) prefill_kernel(PrefillArgs a) {
  extern __shared__ __align__(16) float smem[];
  const int D = static_cast<int>(a.head_dim), P = D + 1;
  float* q_s = smem;                 // [kPrefillQ][P], pre-scaled
  float* k_s = q_s + kPrefillQ * P;  // [kPrefillK][P]
  float* v_s = k_s + kPrefillK * P;  // [kPrefillK][D]
  float* o_s = v_s + kPrefillK * D;  // [kPrefillQ][P]
  float* p_s = o_s + kPrefillQ * P;  // [kPrefillQ][kPrefillK + 1]
  float* m_s = p_s + kPrefillQ * (kPrefillK + 1);
  float* l_s = m_s + kPrefillQ;
  float* corr_s = l_s + kPrefillQ;

  const std::int64_t b = blockIdx.z, head = blockIdx.y, q0 = std::int64_t{blockIdx.x} * kPrefillQ;
  const std::int64_t kvh = head / (a.q_heads / a.kv_heads);
  const int tid = threadIdx.x, r = tid / 4, sub = tid % 4;
  const auto* q = static_cast<const T*>(a.q);
  const auto* kc = static_cast<const KT*>(a.k_cache);
  const auto* vc = static_cast<const KT*>(a.v_cache);
  const std::int32_t* pages = a.block_table + b * a.pages_per_seq;

  for (int idx = tid; idx < kPrefillQ * D; idx += kPrefillThreads) {
    const int row = idx / D, d = idx % D;
    const std::int64_t i = q0 + row;
    q_s[row * P + d] = i < a.chunk ? to_float(q[((b * a.chunk + i) * a.q_heads + head) * D + d]) * a.scale : 0.0f;
    o_s[row * P + d] = 0.0f;
  }
  if (tid < kPrefillQ) {
    m_s[tid] = -INFINITY;
    l_s[tid] = 0.0f;
  }
  const std::int64_t last_query = smaller(q0 + kPrefillQ, a.chunk) - 1;
  const std::int64_t last_key = a.context + last_query;
  const std::int64_t my_last_key = a.context + q0 + r;  // this row's query sees keys up to here
  __syncthreads();

  for (std::int64_t k0 = 0; k0 <= last_key; k0 += kPrefillK) {
    const int n = static_cast<int>(smaller(kPrefillK, last_key + 1 - k0));
    for (int idx = tid; idx < kPrefillK * D; idx += kPrefillThreads) {
      const int j = idx / D, d = idx % D;
      float kv = 0.0f, vv = 0.0f;
      if (j < n) {
        const std::int64_t t = k0 + j;
        const std::int64_t at =
            ((std::int64_t{pages[t / a.page_size]} * a.page_size + t % a.page_size) * a.kv_heads + kvh) * D + d;
        kv = to_float(kc[at]) * a.kv_scale;
        vv = to_float(vc[at]) * a.kv_scale;
      }
      k_s[j * P + d] = kv;
      v_s[j * D + d] = vv;
    }
    __syncthreads();

    float s[kPrefillK / 4];
    float block_max = -INFINITY;
#pragma unroll
    for (int c = 0; c < kPrefillK / 4; ++c) {
      const int j = sub + 4 * c;
      s[c] = -INFINITY;
      if (j < n && k0 + j <= my_last_key) {
        float dot = 0.0f;
        for (int d = 0; d < D; ++d) dot += q_s[r * P + d] * k_s[j * P + d];
        s[c] = dot;
      }
      block_max = fmaxf(block_max, s[c]);
    }
    block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
    block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
    const float m_old = m_s[r];
    const float m_new = fmaxf(m_old, block_max);
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < kPrefillK / 4; ++c) {
      const float p = m_new == -INFINITY ? 0.0f : __expf(s[c] - m_new);  // -inf scores weigh 0
      p_s[r * (kPrefillK + 1) + sub + 4 * c] = p;
      sum += p;
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float corr = m_new == -INFINITY ? 1.0f : __expf(m_old - m_new);
    __syncwarp();
    if (sub == 0) {
      l_s[r] = l_s[r] * corr + sum;
      m_s[r] = m_new;
      corr_s[r] = corr;
    }
    __syncthreads();
    for (int d = sub; d < D; d += 4) {
      float o = o_s[r * P + d] * corr_s[r];
      for (int j = 0; j < n; ++j) o += p_s[r * (kPrefillK + 1) + j] * v_s[j * D + d];
      o_s[r * P + d] = o;
    }
    __syncthreads();
  }

  for (int idx = tid; idx < kPrefillQ * D; idx += kPrefillThreads) {
    const int row = idx / D, d = idx % D;
    const std::int64_t i = q0 + row;
    if (i < a.chunk)
      static_cast<T*>(a.out)[((b * a.chunk + i) * a.q_heads + head) * D + d] =
          from_float<T>(o_s[row * P + d] / l_s[row]);
  }
}

template <class T, class KT>
void launch_prefill(const PrefillArgs& a, cudaStream_t stream) {
  const std::size_t shared = prefill_shared_bytes(a.head_dim, false);
  allow_shared(prefill_kernel<T, KT>, shared);
  const dim3 grid(static_cast<unsigned>((a.chunk + kPrefillQ - 1) / kPrefillQ), static_cast<unsigned>(a.q_heads),
                  static_cast<unsigned>(a.batch));
  prefill_kernel<T, KT><<<grid, kPrefillThreads, shared, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

int decode_head_tile(std::int64_t group) { return group <= 1 ? 1 : group <= 4 ? 4 : 8; }

std::size_t decode_shared_bytes(std::int64_t group, std::int64_t dk, std::int64_t dv) {
  return static_cast<std::size_t>(decode_float_count(decode_head_tile(group), dk, dv) * 4 + kDecodeTokens * 8);
}

int decode_splits(std::int64_t batch, std::int64_t kv_heads, std::int64_t group, std::int64_t context, int sm_count) {
  const std::int64_t blocks = batch * kv_heads * ((group + decode_head_tile(group) - 1) / decode_head_tile(group));
  const std::int64_t wanted = (2 * std::int64_t{sm_count} + blocks - 1) / blocks;
  const std::int64_t most = std::max<std::int64_t>(1, std::min<std::int64_t>(64, context / 256));
  return static_cast<int>(std::clamp<std::int64_t>(wanted, 1, most));
}

void attention_decode(const DecodeArgs& a, cudaStream_t stream) {
  if (a.kv_storage == Storage::fp8_e4m3) {
    decode_typed<__nv_bfloat16, __nv_fp8_e4m3>(a, stream);
  } else if (a.kv_storage == Storage::bf16) {
    decode_typed<__nv_bfloat16, __nv_bfloat16>(a, stream);
  } else {
    decode_typed<float, float>(a, stream);
  }
}

std::size_t prefill_shared_bytes(std::int64_t head_dim, bool tensor_cores) {
  if (tensor_cores) return prefill_tc_shared_bytes(head_dim);
  const std::int64_t P = head_dim + 1;
  const std::int64_t floats =
      kPrefillQ * P * 2 + kPrefillK * P + kPrefillK * head_dim + kPrefillQ * (kPrefillK + 1) + 3 * kPrefillQ;
  return static_cast<std::size_t>(floats * 4);
}

// Which kernel runs: bf16 q and bf16 cache at head_dim 64 or 128 (16-byte aligned buffers, as cudaMalloc's
// are; the device's shared memory large enough) take the tensor-core kernel; every other case (fp32, the FP8
// E4M3 cache, other head dims) the CUDA-core one.
void attention_prefill(const PrefillArgs& a, cudaStream_t stream) {
  if (prefill_tensor_cores(a)) {
    attention_prefill_tc(a, stream);
  } else if (a.fp8_cache) {
    launch_prefill<__nv_bfloat16, __nv_fp8_e4m3>(a, stream);
  } else if (a.storage == Storage::bf16) {
    launch_prefill<__nv_bfloat16, __nv_bfloat16>(a, stream);
  } else {
    launch_prefill<float, float>(a, stream);
  }
}

}  // namespace fleetcast::engine::cuda
