// The tensor-core (WMMA) prefill attention kernel: bf16 q over a paged bf16 cache at head_dim 64 or 128,
// FlashAttention-2 in structure; attention_kernels.cu dispatches to it where prefill_tensor_cores says so.

#include <cuda_bf16.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>

#include "attention_kernels.hpp"
#include "cuda_check.hpp"
#include "kernel_support.cuh"
#include "prefill_index.hpp"

namespace fleetcast::engine::cuda {
namespace {

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

std::size_t prefill_tc_shared_bytes(std::int64_t head_dim) {
  return head_dim == 64 ? TcLayout<64>::bytes : TcLayout<128>::bytes;
}

void attention_prefill_tc(const PrefillArgs& a, cudaStream_t stream) {
  if (a.head_dim == 64) {
    launch_prefill_tc<64>(a, stream);
  } else {
    launch_prefill_tc<128>(a, stream);
  }
}

}  // namespace fleetcast::engine::cuda
