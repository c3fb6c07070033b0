// Attention kernels: paged decode (split over the context, flash-decoding style, then a combine) and
// causal prefill (tiled, online softmax). Decode and the general prefill are plain CUDA-core code in fp32
// arithmetic: correct first, and their share of peak is reported as measured (README), not assumed. The bf16
// prefill at head_dim 64 and 128 has a tensor-core (WMMA) variant, FlashAttention-2 in structure.

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>

#include "attention_kernels.hpp"
#include "cuda_check.hpp"
#include "element_convert.cuh"
#include "prefill_index.hpp"

namespace fleetcast::engine::cuda {
namespace {

__host__ __device__ inline std::int64_t smaller(std::int64_t x, std::int64_t y) { return x < y ? x : y; }

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

// Raises a kernel's dynamic shared memory limit to `bytes` the first time a launch needs more than the
// last raise: once per kernel and size, not on every (timed) launch.
template <class Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  static std::map<const void*, std::size_t> allowed;  // by kernel; 48 KiB needs no asking
  std::size_t& limit = allowed.try_emplace(reinterpret_cast<const void*>(kernel), std::size_t{48} << 10).first->second;
  if (bytes <= limit) return;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  limit = bytes;
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

// Tensor-core prefill: bf16 q and paged bf16 K/V, fp32 accumulation and softmax, bf16 out; head_dim D of 64
// or 128. One block: sequence b (blockIdx.z), query head (blockIdx.y), kTcQ query rows (blockIdx.x); warp w
// owns rows 16w .. 16w + 15 throughout (their S, P and O), so only the shared K/V tile needs the whole block
// to synchronise. Per key tile of kTcK positions, gathered from its pages: S = Q K^T (WMMA, fp32), masked and
// scaled, folded into each row's running max m and sum l, P = exp(S - m) as bf16, O = O * corr + P V (WMMA,
// O kept in fp32 shared memory because a WMMA accumulator's element layout is opaque and rows must be
// rescaled). m and l live in registers of the two lanes that handle a row.
constexpr int kTcQ = kPrefillTcRows, kTcK = kPrefillTcKeys, kTcWarps = kTcQ / 16, kTcThreads = kTcWarps * 32;
constexpr int kTcVec = 8;  // bf16 per 16-byte load

// Byte offsets of the tensor-core kernel's shared memory. Row pitches are padded (bf16 by 8, fp32 by 4) to
// spread rows over the banks while keeping WMMA's rules: a pitch a multiple of 16 bytes and every 16-row
// fragment start 32-byte aligned (16 rows x a multiple of 16 bytes is a multiple of 32, as is each section).
template <int D>
struct TcLayout {
  static constexpr int ldh = D + 8;     // Q, K, V rows (bf16)
  static constexpr int lds = kTcK + 4;  // S rows (fp32)
  static constexpr int ldp = kTcK + 8;  // P rows (bf16)
  static constexpr int ldo = D + 4;     // O rows (fp32)
  static constexpr std::size_t q = 0;
  static constexpr std::size_t k = q + std::size_t{kTcQ} * ldh * 2;
  static constexpr std::size_t v = k + std::size_t{kTcK} * ldh * 2;
  static constexpr std::size_t s = v + std::size_t{kTcK} * ldh * 2;
  static constexpr std::size_t p = s + std::size_t{kTcQ} * lds * 4;
  static constexpr std::size_t o = p + std::size_t{kTcQ} * ldp * 2;
  static constexpr std::size_t bytes = o + std::size_t{kTcQ} * ldo * 4;
  static_assert(D % 16 == 0 && k % 32 == 0 && v % 32 == 0 && s % 32 == 0 && p % 32 == 0 && o % 32 == 0,
                "WMMA needs 32-byte aligned fragments");
};

template <int D>
__global__ void __launch_bounds__(kTcThreads) prefill_tc_kernel(PrefillArgs a) {
  namespace wmma = nvcuda::wmma;
  using L = TcLayout<D>;
  using Bf = __nv_bfloat16;
  constexpr int kRowVecs = D / kTcVec;
  extern __shared__ __align__(128) unsigned char tc_smem[];
  auto* q_s = reinterpret_cast<Bf*>(tc_smem + L::q);
  auto* k_s = reinterpret_cast<Bf*>(tc_smem + L::k);
  auto* v_s = reinterpret_cast<Bf*>(tc_smem + L::v);
  auto* s_s = reinterpret_cast<float*>(tc_smem + L::s);
  auto* p_s = reinterpret_cast<Bf*>(tc_smem + L::p);
  auto* o_s = reinterpret_cast<float*>(tc_smem + L::o);

  const std::int64_t b = blockIdx.z, head = blockIdx.y;
  // Last row tiles first: they walk the most key tiles, so the short ones fill in behind them.
  const PrefillTile tile = prefill_tile(a.chunk, kTcQ, gridDim.x - 1 - blockIdx.x);
  const std::int64_t kvh = prefill_kv_head(head, a.q_heads, a.kv_heads);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const auto* q = static_cast<const Bf*>(a.q);
  const auto* kc = static_cast<const Bf*>(a.k_cache);
  const auto* vc = static_cast<const Bf*>(a.v_cache);
  const std::int32_t* pages = a.block_table + b * a.pages_per_seq;
  const uint4 zero = make_uint4(0u, 0u, 0u, 0u);

  // Q unscaled (the scale is applied to S in fp32, not rounded into bf16 q); rows past the chunk's end are
  // zero so that they compute finite values that are never written.
  for (int idx = tid; idx < kTcQ * kRowVecs; idx += kTcThreads) {
    const int row = idx / kRowVecs, c = idx % kRowVecs;
    const uint4 v =
        row < tile.rows
            ? *reinterpret_cast<const uint4*>(q + ((b * a.chunk + tile.q0 + row) * a.q_heads + head) * D + c * kTcVec)
            : zero;
    *reinterpret_cast<uint4*>(q_s + row * L::ldh + c * kTcVec) = v;
  }
  for (int idx = tid; idx < kTcQ * L::ldo; idx += kTcThreads) o_s[idx] = 0.0f;

  // Lanes 2r and 2r + 1 of warp w handle row 16w + r of the softmax, the even and odd columns.
  const int my_row = warp * 16 + lane / 2, half = lane % 2;
  const std::int64_t my_query = tile.q0 + my_row;
  const std::int64_t last_key = prefill_last_key(a.context, tile.q0 + tile.rows - 1);  // the block's last row's
  const std::int64_t key_tiles = prefill_key_tiles(a.context, tile, kTcK);
  float m = -INFINITY, l = 0.0f;
  __syncthreads();

  for (std::int64_t kt = 0; kt < key_tiles; ++kt) {
    const std::int64_t k0 = kt * kTcK;
    const int n = static_cast<int>(smaller(kTcK, last_key + 1 - k0));
    // Positions past the block's last key are zero, not stale: their P is 0, and 0 x a stale NaN is NaN.
    for (int idx = tid; idx < kTcK * kRowVecs; idx += kTcThreads) {
      const int j = idx / kRowVecs, c = idx % kRowVecs;
      uint4 kv = zero, vv = zero;
      if (j < n) {
        const std::int64_t at = prefill_cache_entry(pages, k0 + j, a.page_size, a.kv_heads, kvh) * D + c * kTcVec;
        kv = *reinterpret_cast<const uint4*>(kc + at);
        vv = *reinterpret_cast<const uint4*>(vc + at);
      }
      *reinterpret_cast<uint4*>(k_s + j * L::ldh + c * kTcVec) = kv;
      *reinterpret_cast<uint4*>(v_s + j * L::ldh + c * kTcVec) = vv;
    }
    __syncthreads();

    {  // S (this warp's 16 rows x kTcK) = Q K^T; K stored [key][d] is K^T column-major.
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s_frag[kTcK / 16];
#pragma unroll
      for (int c = 0; c < kTcK / 16; ++c) wmma::fill_fragment(s_frag[c], 0.0f);
#pragma unroll
      for (int d0 = 0; d0 < D; d0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, Bf, wmma::row_major> q_frag;
        wmma::load_matrix_sync(q_frag, q_s + warp * 16 * L::ldh + d0, L::ldh);
#pragma unroll
        for (int c = 0; c < kTcK / 16; ++c) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, Bf, wmma::col_major> k_frag;
          wmma::load_matrix_sync(k_frag, k_s + c * 16 * L::ldh + d0, L::ldh);
          wmma::mma_sync(s_frag[c], q_frag, k_frag, s_frag[c]);
        }
      }
#pragma unroll
      for (int c = 0; c < kTcK / 16; ++c)
        wmma::store_matrix_sync(s_s + warp * 16 * L::lds + c * 16, s_frag[c], L::lds, wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax of this row's tile; masked positions (beyond the row's causal limit or the block's
    // last key) weigh 0.
    float* s_row = s_s + my_row * L::lds;
    Bf* p_row = p_s + my_row * L::ldp;
    float tile_max = -INFINITY;
#pragma unroll 8
    for (int c = 0; c < kTcK / 2; ++c) {
      const int j = 2 * c + half;
      const float sv = j < n && prefill_visible(a.context, my_query, k0 + j) ? s_row[j] * a.scale : -INFINITY;
      s_row[j] = sv;
      tile_max = fmaxf(tile_max, sv);
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    const float m_new = fmaxf(m, tile_max);
    // Every row sees position 0 in the first tile, so m_new is finite; the guards keep a fully masked row
    // at 0 rather than NaN all the same.
    const float corr = m_new == -INFINITY ? 1.0f : __expf(m - m_new);
    float sum = 0.0f;
#pragma unroll 8
    for (int c = 0; c < kTcK / 2; ++c) {
      const int j = 2 * c + half;
      const Bf pb = __float2bfloat16_rn(m_new == -INFINITY ? 0.0f : __expf(s_row[j] - m_new));
      p_row[j] = pb;
      sum += __bfloat162float(pb);  // the rounded weight P V uses, so that O / l is a convex mix of V
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    l = l * corr + sum;
    m = m_new;
    float* o_row = o_s + my_row * L::ldo;
#pragma unroll 8
    for (int c = 0; c < D / 2; ++c) o_row[2 * c + half] *= corr;
    __syncwarp();

    {  // O (this warp's 16 rows x D) += P V; V stored [key][d] is row-major.
      wmma::fragment<wmma::matrix_a, 16, 16, 16, Bf, wmma::row_major> p_frag[kTcK / 16];
#pragma unroll
      for (int c = 0; c < kTcK / 16; ++c) wmma::load_matrix_sync(p_frag[c], p_s + warp * 16 * L::ldp + c * 16, L::ldp);
#pragma unroll
      for (int n0 = 0; n0 < D; n0 += 16) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> o_frag;
        wmma::load_matrix_sync(o_frag, o_s + warp * 16 * L::ldo + n0, L::ldo, wmma::mem_row_major);
#pragma unroll
        for (int c = 0; c < kTcK / 16; ++c) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, Bf, wmma::row_major> v_frag;
          wmma::load_matrix_sync(v_frag, v_s + c * 16 * L::ldh + n0, L::ldh);
          wmma::mma_sync(o_frag, p_frag[c], v_frag, o_frag);
        }
        wmma::store_matrix_sync(o_s + warp * 16 * L::ldo + n0, o_frag, L::ldo, wmma::mem_row_major);
      }
    }
    __syncthreads();  // every warp is done with this K/V tile (and its O stores are visible) before the next
  }

  if (my_row < tile.rows) {
    Bf* out = static_cast<Bf*>(a.out) + ((b * a.chunk + tile.q0 + my_row) * a.q_heads + head) * D;
    const float* o_row = o_s + my_row * L::ldo;
    for (int c = 0; c < D / 2; ++c) {
      const int d = 2 * c + half;
      out[d] = __float2bfloat16_rn(o_row[d] / l);
    }
  }
}

template <int D>
void launch_prefill_tc(const PrefillArgs& a, cudaStream_t stream) {
  const std::size_t shared = TcLayout<D>::bytes;
  allow_shared(prefill_tc_kernel<D>, shared);
  const dim3 grid(static_cast<unsigned>(prefill_tile_count(a.chunk, kTcQ)), static_cast<unsigned>(a.q_heads),
                  static_cast<unsigned>(a.batch));
  prefill_tc_kernel<D><<<grid, kTcThreads, shared, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

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

bool prefill_tensor_cores(const PrefillArgs& a) {
  // The current device's opt-in shared memory per block, asked once per device: the sm_120 parts that
  // compute_100 PTX reaches allow 99 KiB, less than the head_dim 128 kernel's 110 KiB. Neither call is a
  // stream operation, so this stays graph-capturable.
  static std::mutex mutex;
  static std::map<int, std::size_t> optin;  // by device
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  std::size_t limit = 0;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = optin.find(device);
    if (it == optin.end()) {
      int bytes = 0;
      CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      it = optin.emplace(device, static_cast<std::size_t>(bytes)).first;
    }
    limit = it->second;
  }
  // 16-byte loads of q and cache rows (every row offset is a multiple of head_dim, so aligned bases suffice);
  // the kernel applies no kv_scale, which a bf16 cache has at 1 (the CUDA-core kernel serves any other).
  return prefill_tensor_cores(a.storage, a.fp8_cache, a.head_dim, limit) && a.kv_scale == 1.0f && aligned16(a.q) &&
         aligned16(a.k_cache) && aligned16(a.v_cache);
}

bool prefill_tensor_cores(Storage storage, bool fp8_cache, std::int64_t head_dim, std::size_t shared_limit) {
  return storage == Storage::bf16 && !fp8_cache && (head_dim == 64 || head_dim == 128) &&
         prefill_shared_bytes(head_dim, true) <= shared_limit;
}

std::size_t prefill_shared_bytes(std::int64_t head_dim, bool tensor_cores) {
  if (tensor_cores) return head_dim == 64 ? TcLayout<64>::bytes : TcLayout<128>::bytes;
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
    if (a.head_dim == 64) {
      launch_prefill_tc<64>(a, stream);
    } else {
      launch_prefill_tc<128>(a, stream);
    }
  } else if (a.fp8_cache) {
    launch_prefill<__nv_bfloat16, __nv_fp8_e4m3>(a, stream);
  } else if (a.storage == Storage::bf16) {
    launch_prefill<__nv_bfloat16, __nv_bfloat16>(a, stream);
  } else {
    launch_prefill<float, float>(a, stream);
  }
}

}  // namespace fleetcast::engine::cuda
