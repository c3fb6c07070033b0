// The CUDA backend on a real GPU: tagged [.gpu] (hidden), run by the engine_gpu ctest entry, and
// skipped with a message where this machine has no GPU. Also, untagged, the host-side roundings against
// CUDA's own conversions, which need the CUDA headers but no GPU. Whole model steps: test_gpu_model_step.cpp.

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <tuple>
#include <vector>

#include "attention_kernels.hpp"
#include "cuda_backend.hpp"
#include "fleetcast/engine/fill.hpp"
#include "fleetcast/engine/model_step.hpp"
#include "fleetcast/engine/ops.hpp"
#include "fleetcast/specs/presets.hpp"
#include "gpu_support.hpp"
#include "prefill_index.hpp"
#include "step_gemm_layout.hpp"

using namespace fleetcast::engine;
using fleetcast::engine::test::have_gpu;

TEST_CASE("cuda: host roundings equal CUDA's bf16 and e4m3 conversions", "[engine][cuda]") {
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const float v = uniform_pm1(99, i) * (i % 2 ? 1.0f : 300.0f);
    REQUIRE(round_bf16(v) == __bfloat162float(__float2bfloat16_rn(v)));
    const __nv_fp8_e4m3 q(v);
    REQUIRE(round_e4m3(v) == static_cast<float>(q));
  }
  for (const float v : {448.0f, 460.0f, 470.0f, 1e6f, -1e6f, 1.0f / 1024, 3.0f / 1024})
    CHECK(round_e4m3(v) == static_cast<float>(__nv_fp8_e4m3(v)));
}

TEST_CASE("cuda: the tensor-core prefill's dispatch, tiles, causal limits and page gathers match the plain formulas",
          "[engine][cuda]") {
  using namespace fleetcast::engine::cuda;
  // Which kernel: bf16 with a bf16 cache at head_dim 64 and 128 where its shared memory fits (H100 and B200
  // allow 227 KiB per block, sm_120 99 KiB); fp32, the FP8 cache and other head dims keep the CUDA-core one.
  const std::size_t hopper = 227 << 10, small = 99 << 10;
  CHECK(prefill_tensor_cores(Storage::bf16, false, 128, hopper));
  CHECK(prefill_tensor_cores(Storage::bf16, false, 64, hopper));
  CHECK(prefill_tensor_cores(Storage::bf16, false, 64, small));
  CHECK_FALSE(prefill_tensor_cores(Storage::bf16, false, 128, small));
  CHECK_FALSE(prefill_tensor_cores(Storage::bf16, true, 128, hopper));
  CHECK_FALSE(prefill_tensor_cores(Storage::fp32, false, 128, hopper));
  for (const std::int64_t d : {16, 32, 80, 96, 192, 256})
    CHECK_FALSE(prefill_tensor_cores(Storage::bf16, false, d, hopper));
  // Q, K, V bf16 [64][136], S fp32 [64][68], P bf16 [64][72], O fp32 [64][132]; at 64, [64][72] and [64][68].
  CHECK(prefill_shared_bytes(128, true) == 112640);
  CHECK(prefill_shared_bytes(64, true) == 71680);
  // Row tiles: every row of a chunk in exactly one tile, the tile's rows counted, the last one short.
  for (std::int64_t chunk = 1; chunk <= 3 * kPrefillTcRows + 1; ++chunk) {
    const std::int64_t tiles = prefill_tile_count(chunk, kPrefillTcRows);
    std::vector<int> seen(static_cast<std::size_t>(chunk), 0);
    for (std::int64_t t = 0; t < tiles; ++t) {
      const PrefillTile q = prefill_tile(chunk, kPrefillTcRows, t);
      REQUIRE(q.rows >= 1);
      REQUIRE(q.rows <= kPrefillTcRows);
      for (std::int64_t r = 0; r < q.rows; ++r) ++seen[static_cast<std::size_t>(q.q0 + r)];
    }
    for (const int n : seen) REQUIRE(n == 1);
    // Causal limits and the key tiles a block walks: its last row's last key is in its last tile, and
    // each row sees exactly context + i + 1 positions.
    for (const std::int64_t context : {0, 1, 16, 63, 64, 65, 200}) {
      for (std::int64_t t = 0; t < tiles; ++t) {
        const PrefillTile q = prefill_tile(chunk, kPrefillTcRows, t);
        const std::int64_t last = context + q.q0 + q.rows - 1;  // the block's last row sees 0 .. last
        const std::int64_t k_tiles = prefill_key_tiles(context, q, kPrefillTcKeys);
        REQUIRE(k_tiles == last / kPrefillTcKeys + 1);
        REQUIRE((k_tiles - 1) * kPrefillTcKeys <= last);
        REQUIRE(k_tiles * kPrefillTcKeys > last);
      }
    }
  }
  for (const std::int64_t context : {0, 1, 5, 16}) {
    for (std::int64_t i = 0; i < 20; ++i) {
      std::int64_t visible = 0;
      for (std::int64_t t = 0; t < context + 40; ++t) {
        REQUIRE(prefill_visible(context, i, t) == (t < context + i + 1));
        visible += prefill_visible(context, i, t) ? 1 : 0;
      }
      REQUIRE(visible == context + i + 1);
    }
  }
  // GQA: query heads kvh * group .. kvh * group + group - 1 read kv head kvh.
  for (const std::int64_t kv_heads : {1, 2, 3, 8}) {
    for (const std::int64_t group : {1, 2, 3, 4, 8}) {
      for (std::int64_t kvh = 0; kvh < kv_heads; ++kvh)
        for (std::int64_t g = 0; g < group; ++g)
          REQUIRE(prefill_kv_head(kvh * group + g, kv_heads * group, kv_heads) == kvh);
    }
  }
  // Page gathers: a sequence's block-table row of scattered pages; walking pages then slots gives cache
  // entry (page * page_size + slot) * kv_heads + kvh for position page_index * page_size + slot.
  const std::vector<std::int32_t> table = {7, 2, 9, 0, 4};
  for (const std::int64_t page_size : {1, 16}) {
    for (const std::int64_t kv_heads : {1, 3}) {
      std::vector<int> hits(static_cast<std::size_t>(10 * page_size * kv_heads), 0);
      for (std::size_t pi = 0; pi < table.size(); ++pi) {
        for (std::int64_t slot = 0; slot < page_size; ++slot) {
          const std::int64_t t = static_cast<std::int64_t>(pi) * page_size + slot;
          for (std::int64_t kvh = 0; kvh < kv_heads; ++kvh) {
            const std::int64_t want = (std::int64_t{table[pi]} * page_size + slot) * kv_heads + kvh;
            const std::int64_t got = prefill_cache_entry(table.data(), t, page_size, kv_heads, kvh);
            REQUIRE(got == want);
            ++hits[static_cast<std::size_t>(got)];
          }
        }
      }
      for (const int n : hits) REQUIRE(n <= 1);  // no two positions or heads share an entry
    }
  }
}

TEST_CASE("cuda: without a GPU, the backend refuses to start with HardwareAbsent", "[engine][cuda]") {
  std::string why;
  if (cuda_device_count(&why) > 0) return;  // the [.gpu] cases cover a machine with one
  CHECK_THROWS_WITH(make_cuda_backend(), Catch::Contains("no usable CUDA GPU"));
}

TEST_CASE("cuda: every supported op passes its small-shape check in full", "[.gpu][engine]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const auto h = backend->describe();
  CHECK(h.sm_count > 0);
  CHECK_FALSE(h.cuda_version.empty());
  for (const auto& op : all_ops()) {
    for (const auto& dtype : op.dtypes) {
      const Support s = backend->support(op, dtype, op.small_check);
      if (!s.supported) {
        WARN(op.name << " " << dtype << " skipped: " << s.reason);
        continue;
      }
      INFO(op.name << " " << dtype);
      auto prepared = backend->prepare(op, s.dtype, op.small_check);
      const auto r = prepared->check(true);
      CHECK(r.compared > 0);
      const auto seconds = backend->time(*prepared, {2, 5, true});
      CHECK(seconds.size() == 5);
    }
  }
}

TEST_CASE("cuda: a large GEMM is checked on samples and runs at a plausible rate", "[.gpu][engine]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const OpInfo& gemm = *find_op("gemm");
  const Shape shape{{"m", 4096}, {"n", 4096}, {"k", 4096}};
  for (const char* dtype : {"bf16", "fp8"}) {
    const Support s = backend->support(gemm, dtype, shape);
    if (!s.supported) continue;
    auto prepared = backend->prepare(gemm, s.dtype, shape);
    prepared->check(false);
    const auto seconds = backend->time(*prepared, {3, 10, true});
    double best = seconds.front();
    for (const double t : seconds) best = std::min(best, t);
    const double tflops = 2.0 * 4096 * 4096 * 4096 / best / 1e12;
    WARN(dtype << " GEMM 4096^3: " << tflops << " TFLOPS");
    CHECK(tflops > 50.0);  // an order of magnitude below any Hopper or Blackwell part: catches a broken path
  }
}

TEST_CASE("cuda: decode attention splits a long context until the grid fills the SMs", "[engine][cuda]") {
  // Batch 1, 8 kv heads with 4 query heads each: 8 blocks; 132 SMs want 264, so 33 pieces of 993 tokens.
  CHECK(cuda::decode_splits(1, 8, 4, 32768, 132) == 33);
  // A full batch needs no split.
  CHECK(cuda::decode_splits(256, 8, 4, 32768, 132) == 1);
  // Pieces keep at least 256 tokens: 1000 tokens give at most 3, however empty the GPU.
  CHECK(cuda::decode_splits(1, 1, 128, 1000, 132) == 3);
  CHECK(cuda::decode_splits(1, 1, 1, 100, 132) == 1);
  // And never more than 64 pieces.
  CHECK(cuda::decode_splits(1, 1, 1, 1 << 20, 148) == 64);
  // MLA's 128 heads share one latent entry: 16 tiles of 8 heads per sequence.
  CHECK(cuda::decode_head_tile(128) == 8);
  CHECK(cuda::decode_head_tile(4) == 4);
  CHECK(cuda::decode_head_tile(1) == 1);
  // The MLA model_step test's shapes on an H200 (132 SMs): DeepSeek-V3's 16 heads per GPU of TP 8 over one
  // latent entry per token: one sequence after 520 tokens is cut in two pieces; a prefill of 4 tokens after
  // 520 (8 causal rows) too, each row's pieces cut from the longest row's 524 tokens.
  CHECK(cuda::decode_splits(1, 1, 16, 521, 132) == 2);
  CHECK(cuda::decode_splits(8, 1, 16, 524, 132) == 2);
  CHECK(cuda::decode_splits(48, 1, 16, 32, 132) == 1);
  // A 576-wide query and 512-wide value for 8 heads fit in 48 KiB: no opt-in needed.
  // Floats: 8 queries of 576, 8 accumulators of 512, 8 x 64 scores, 3 x 8 running values; 64 entry indices.
  CHECK(cuda::decode_shared_bytes(16, 576, 512) == (8 * 576 + 8 * 512 + 8 * 64 + 3 * 8) * 4 + 64 * 8);
  CHECK(cuda::decode_shared_bytes(16, 576, 512) < (48u << 10));
}

namespace {

// cuBLASLt's definition of a strided-batched GEMM, column-major (beta 0): D_h(i, j) = sum_p op(A_h)(i, p)
// B_h(p, j), element (r, c) of an operand in batch h at h stride + c ld + r. Counts the writes per element.
void replay_lt(const cuda::BatchedGemmShape& s, const std::vector<float>& w, std::int64_t w0,
               const std::vector<float>& x, std::vector<float>& y, std::vector<int>& writes) {
  const cuda::BatchedGemmLayouts l = cuda::batched_gemm_layouts(s);
  // cuBLASLt's own validity rules: leading dimensions at least the rows.
  REQUIRE(l.a.ld >= l.a.rows);
  REQUIRE(l.b.ld >= l.b.rows);
  REQUIRE(l.d.ld >= l.d.rows);
  REQUIRE(l.b.rows == (l.transpose_a ? l.a.rows : l.a.cols));  // the inner dimension k agrees
  for (std::int64_t h = 0; h < s.batch; ++h)
    for (std::int64_t j = 0; j < l.d.cols; ++j)
      for (std::int64_t i = 0; i < l.d.rows; ++i) {
        double acc = 0.0;
        for (std::int64_t p = 0; p < l.b.rows; ++p) {
          const std::int64_t a_at = l.transpose_a ? h * l.a.stride + i * l.a.ld + p : h * l.a.stride + p * l.a.ld + i;
          acc += double{w[w0 + a_at]} * x[h * l.b.stride + j * l.b.ld + p];
        }
        const std::int64_t at = h * l.d.stride + j * l.d.ld + i;
        y[at] = static_cast<float>(acc);
        ++writes[at];
      }
}

}  // namespace

TEST_CASE("cuda: MLA's per-head W_UK and W_UV GEMMs, as cuBLASLt reads their layouts", "[engine][cuda]") {
  // Small MLA widths, distinct so a swapped dimension shows: 3 heads, nope 5, rope 2, latent 6, v 4; 4 tokens.
  StepDims d{};
  d.mla = true;
  d.q_heads = 3;
  d.nope = 5;
  d.rope_dim = 2;
  d.kv_lora = 6;
  d.v_dim = 4;
  d.head_dim = 7;
  d.kv_heads = 1;
  const std::int64_t T = 4, Q = 3, nope = 5, r = 2, kvl = 6, v = 4, qd = 7, entry = kvl + r;
  auto filled = [](std::uint64_t seed, std::int64_t n) {
    std::vector<float> a(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) a[i] = uniform_pm1(seed, static_cast<std::uint64_t>(i));
    return a;
  };
  // kv_b [Q (nope + v), kv_lora]: each head's W_UK rows, then its W_UV rows (the checkpoint's layout).
  const std::vector<float> kv_b = filled(1, Q * (nope + v) * kvl), q_full = filled(2, T * Q * qd);
  {
    // q_nope in place in q_b's output, each head's latent query into the first kv_lora of its 576-wide slot.
    std::vector<float> q_attn(T * Q * entry, -7.0f);
    std::vector<int> writes(q_attn.size(), 0);
    replay_lt(cuda::w_uk_shape(d, T), kv_b, 0, q_full, q_attn, writes);
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t h = 0; h < Q; ++h)
        for (std::int64_t c = 0; c < entry; ++c) {
          const std::size_t at = (t * Q + h) * entry + c;
          if (c >= kvl) {  // the rope part is mla_write's: untouched
            CHECK(writes[at] == 0);
            continue;
          }
          double want = 0.0;  // q_nope[t, h] . W_UK[h][:, c]
          for (std::int64_t i = 0; i < nope; ++i)
            want += double{q_full[(t * Q + h) * qd + i]} * kv_b[(h * (nope + v) + i) * kvl + c];
          CHECK(writes[at] == 1);
          CHECK(q_attn[at] == Catch::Detail::Approx(want).margin(1e-6));
        }
  }
  {
    // Attention's latent output [T, Q, kv_lora] through each head's W_UV into the O GEMM's input [T, Q v].
    const std::vector<float> latent = filled(3, T * Q * kvl);
    std::vector<float> attn(T * Q * v, -7.0f);
    std::vector<int> writes(attn.size(), 0);
    replay_lt(cuda::w_uv_shape(d, T), kv_b, nope * kvl, latent, attn, writes);
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t h = 0; h < Q; ++h)
        for (std::int64_t j = 0; j < v; ++j) {
          double want = 0.0;  // latent[t, h] . W_UV[h][j, :]
          for (std::int64_t c = 0; c < kvl; ++c)
            want += double{latent[(t * Q + h) * kvl + c]} * kv_b[(h * (nope + v) + nope + j) * kvl + c];
          const std::size_t at = (t * Q + h) * v + j;
          CHECK(writes[at] == 1);
          CHECK(attn[at] == Catch::Detail::Approx(want).margin(1e-6));
        }
  }
}

TEST_CASE("cuda: the decode kernel's causal rows are the CPU step's prefill queries", "[engine][cuda]") {
  // The MLA step's prefill: 2 sequences of 4 new tokens after 520, one launch of 8 rows. The CPU step runs
  // new token j of sequence b as a decode of one query over its block-table row b and context + j + 1 entries.
  cuda::DecodeArgs a{};
  a.context = 520 + 4;
  a.queries_per_seq = 4;
  for (std::int64_t t = 0; t < 8; ++t) {
    const cuda::DecodeRow row = cuda::decode_row(a, t);
    CHECK(row.seq == t / 4);
    CHECK(row.context == 520 + t % 4 + 1);
  }
  // Decode (every caller but the MLA prefill): each row its own sequence over the whole context.
  a.context = 41;
  a.queries_per_seq = 1;
  for (std::int64_t b = 0; b < 3; ++b) {
    CHECK(cuda::decode_row(a, b).seq == b);
    CHECK(cuda::decode_row(a, b).context == 41);
  }
  // DecodeArgs left to its defaults (the attention ops' cases) is decode.
  CHECK(cuda::DecodeArgs{}.queries_per_seq == 1);
}

TEST_CASE("cuda: split-K decode, FP8 caches and long prefill chunks match the reference", "[.gpu][engine]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const std::vector<std::tuple<std::string, std::string, Shape>> cases = {
      // Batch 1 over 5000 tokens: split into pieces merged by the combine kernel, last page part-filled.
      {"attention_decode_gqa",
       "bf16",
       {{"batch", 1}, {"context", 5000}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"page_size", 16}}},
      {"attention_decode_gqa",
       "fp8",
       {{"batch", 2}, {"context", 3000}, {"q_heads", 6}, {"kv_heads", 1}, {"head_dim", 64}, {"page_size", 16}}},
      {"attention_decode_mla",
       "fp8",
       {{"batch", 1}, {"context", 4100}, {"q_heads", 16}, {"latent_dim", 512}, {"rope_dim", 64}, {"page_size", 64}}},
      {"attention_prefill",
       "bf16",
       {{"batch", 2},
        {"chunk", 300},
        {"context", 257},
        {"q_heads", 8},
        {"kv_heads", 2},
        {"head_dim", 128},
        {"page_size", 16}}},
      // The tensor-core kernel's other head_dim: a chunk of 2 full row tiles and a short one after 37 cached
      // tokens (key tiles straddle the cache/chunk boundary and a part-filled page), GQA 3.
      {"attention_prefill",
       "bf16",
       {{"batch", 2},
        {"chunk", 150},
        {"context", 37},
        {"q_heads", 6},
        {"kv_heads", 2},
        {"head_dim", 64},
        {"page_size", 16}}},
      // A first chunk shorter than one row tile: rows past the chunk's end are computed and not written.
      {"attention_prefill",
       "bf16",
       {{"batch", 1},
        {"chunk", 21},
        {"context", 0},
        {"q_heads", 4},
        {"kv_heads", 1},
        {"head_dim", 128},
        {"page_size", 16}}},
      {"sampling", "bf16", {{"batch", 3}, {"vocab", 151936}, {"top_k", 1024}}},
  };
  for (const auto& [name, dtype, shape] : cases) {
    INFO(name << " " << dtype << " " << shape.text());
    const OpInfo& op = *find_op(name);
    validate_shape(op, shape, "test", "shape");
    const Support s = backend->support(op, dtype, shape);
    if (!s.supported) {
      WARN(name << " " << dtype << " skipped: " << s.reason);
      continue;
    }
    const auto r = backend->prepare(op, s.dtype, shape)->check(true);
    CHECK(r.compared > 0);
  }
}

TEST_CASE("cuda: block-scaled GEMMs run on SM100 and are skipped with the reason before", "[.gpu][engine]") {
  if (!have_gpu()) return;
  auto backend = make_cuda_backend();
  const OpInfo& op = *find_op("gemm");
  Shape shape;
  shape.set("m", 64);
  shape.set("n", 256);
  shape.set("k", 512);
  for (const char* dtype : {"fp8_block", "mxfp8", "nvfp4"}) {
    INFO(dtype);
    const Support s = backend->support(op, dtype, shape);
    if (!s.supported) {
      CHECK_THAT(s.reason, Catch::Contains("SM100"));
      WARN(dtype << " skipped: " << s.reason);
      continue;
    }
    CHECK(backend->prepare(op, s.dtype, shape)->check(true).compared == 64u * 256u);
  }
}
