// Attention kinds beyond dense softmax attention, against hand counts: DeepSeek Sparse Attention on MLA (a
// lightning indexer picks each query's top-k latents), MiniMax Sparse Attention on GQA (an indexer picks each KV
// head's key blocks on the sparse layers) and chunked local attention (Llama 4).
#include <catch2/catch.hpp>

#include "fleetcast/calibration/profile.hpp"
#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/simulator/memory_model.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/presets.hpp"
#include "support.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;
using simulator::Op;
using test::one_gpu;

TEST_CASE("DeepSeek Sparse Attention: top-k latents per query, every key scored by the indexer", "[step_time]") {
  // DeepSeek-V3's MLA with V3.2's lightning indexer (REFERENCE.md section 5: 64 heads x 128, top-k 2,048).
  auto dense = specs::model_preset("deepseek-v3");
  auto sparse = dense;
  sparse.attention.sparse_top_k_tokens = 2048;
  sparse.attention.indexer_heads = 64;
  sparse.attention.indexer_head_dim = 128;
  const auto d = one_gpu("h200", 8);
  const auto profile = calibration::datasheet_profile(d.hardware, "sglang");
  const auto attention = [&](const specs::ModelSpec& m, const simulator::BatchShape& b) {
    return simulator::StepTimeModel(m, d, profile).predict(b).op(Op::attention);
  };
  const double latent = 576.0;                          // (512 + 64) x 1 byte, the preset's FP8 cache
  const double absorbed = 2.0 * 128 / 8 * (576 + 512);  // FLOPs per (query, key) pair per GPU, 16 heads
  const double index = 2.0 * 64 * 128 / 8;              // the indexer's FLOPs per (query, key) pair per GPU

  simulator::BatchShape b;  // one sequence decoding its 32,768th token
  b.decode_contexts = {32767};
  CHECK(attention(dense, b).bytes == Approx(61 * 32768 * latent));
  const auto s = attention(sparse, b);
  CHECK(s.bytes == Approx(61 * (2048 * latent + 32768 * 128.0)));  // top-k latents + every FP8 indexer key
  CHECK(s.flops_decode == Approx(61 * (2048 * absorbed + 32768 * index)));

  // Below top-k every key is attended: the attention is dense MLA's plus the indexer.
  b.decode_contexts = {99};
  CHECK(attention(sparse, b).flops_decode == Approx(attention(dense, b).flops_decode + 61 * 100 * index));

  // Prefill of 4,096 tokens: query i attends min(i, 2,048) keys in the absorbed form (the sparse kernels gather
  // latents); dense MLA runs the up-projected form (192 + 128 wide) over all i.
  simulator::BatchShape p;
  p.prefill.push_back({4096, 0, true});
  const double sparse_pairs = 2048.0 * 2049 / 2 + 2048.0 * 2048, all_pairs = 4096.0 * 4097 / 2;
  CHECK(attention(dense, p).flops_prefill == Approx(61 * all_pairs * 2.0 * 16 * (192 + 128)));
  CHECK(attention(sparse, p).flops_prefill == Approx(61 * (sparse_pairs * absorbed + all_pairs * index)));

  // The cache holds each token's latent and its indexer key (128 FP8 values and a 4-byte scale) on every layer.
  CHECK(simulator::kv_bytes_per_token(sparse) == Approx(61 * (576 + 132)));
  CHECK(simulator::kv_bytes_per_token(dense) == Approx(61 * 576));

  // With 45 of the 61 layers turned into linear attention (a KDA hybrid such as GLM-5.3-Flash), only the 16 MLA
  // layers attend, cache and run the indexer.
  auto hybrid = sparse;
  hybrid.linear_attention = specs::LinearAttentionSpec{45, 16, 32, 128, 128, 4, specs::Precision::fp32};
  b.decode_contexts = {32767};
  CHECK(attention(hybrid, b).bytes == Approx(16 * (2048 * latent + 32768 * 128.0)));
  CHECK(simulator::kv_bytes_per_token(hybrid) == Approx(16 * (576 + 132)));
}

TEST_CASE("MiniMax Sparse Attention: 2,048 keys per query on 57 of 60 layers, one shared indexer key", "[step_time]") {
  const auto sparse = specs::model_preset("minimax-m3");
  REQUIRE(sparse.attention.sparse_layers == 57);
  auto dense = sparse;  // the same model attending every key on every layer, without an indexer
  dense.attention.sparse_top_k_tokens = dense.attention.indexer_heads = dense.attention.indexer_head_dim = 0;
  dense.attention.sparse_layers = 0;
  const auto d = one_gpu("h200", 8);
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  const auto attention = [&](const specs::ModelSpec& m, const simulator::BatchShape& b) {
    return simulator::StepTimeModel(m, d, profile).predict(b).op(Op::attention);
  };
  const double kv = 2.0 * 1 * 128 * 2;     // at TP8 each GPU holds one of the 4 KV heads: K and V, 128 BF16 values
  const double pair = 2.0 * 64 / 8 * 256;  // FLOPs per (query, key) pair per GPU: 8 query heads, qk 128 + v 128
  const double index_key = 128 * 2.0;      // the one BF16 indexer key per token, whole on every GPU
  const double index = 2.0 * 1 * 128;      // indexer FLOPs per pair per GPU: 4 heads over 8 ranks, one each

  simulator::BatchShape b;  // one sequence decoding its 32,768th token
  b.decode_contexts = {32767};
  CHECK(attention(dense, b).bytes == Approx(60 * 32768 * kv));
  const auto s = attention(sparse, b);
  CHECK(s.bytes == Approx(3 * 32768 * kv + 57 * (2048 * kv + 32768 * index_key)));
  CHECK(s.flops_decode == Approx(3 * 32768 * pair + 57 * (2048 * pair + 32768 * index)));
  // Top-k reuse (vLLM's index_topk_freq 4): 15 of the 57 sparse layers score keys, all 57 attend their selection.
  auto reuse = sparse;
  reuse.attention.indexer_layers = 15;
  CHECK(attention(reuse, b).bytes == Approx(3 * 32768 * kv + 57 * 2048 * kv + 15 * 32768 * index_key));

  // Below 16 blocks every key is attended: dense attention plus the indexer.
  b.decode_contexts = {99};
  CHECK(attention(sparse, b).flops_decode == Approx(attention(dense, b).flops_decode + 57 * 100 * index));

  // Prefill of 4,096 tokens: on a sparse layer query i attends min(i, 2,048) keys, on a dense one all i.
  simulator::BatchShape p;
  p.prefill.push_back({4096, 0, true});
  const double sparse_pairs = 2048.0 * 2049 / 2 + 2048.0 * 2048, all_pairs = 4096.0 * 4097 / 2;
  CHECK(attention(dense, p).flops_prefill == Approx(60 * all_pairs * pair));
  CHECK(attention(sparse, p).flops_prefill ==
        Approx(3 * all_pairs * pair + 57 * (sparse_pairs * pair + all_pairs * index)));

  // The cache: K and V of 4 heads x 128 BF16 values on all 60 layers, the 128-value indexer key on the 57 sparse
  // ones. At TP8 a GPU holds one KV head and the whole indexer key.
  CHECK(simulator::kv_bytes_per_token(sparse) == Approx(60 * 2048.0 + 57 * 256.0));
  CHECK(simulator::kv_bytes_per_token(dense) == Approx(60 * 2048.0));
  const auto plan = simulator::plan_memory(sparse, d);
  CHECK(plan.kv_bytes_per_token == Approx(60 * 512.0 + 57 * 256.0));
}

TEST_CASE("chunked attention (Llama 4) sees the keys of its own chunk, a sliding window the last ones", "[step_time]") {
  auto chunked = specs::model_preset("llama-4-scout-17b-16e");
  REQUIRE(chunked.attention.sliding_window_chunked);
  REQUIRE(chunked.attention.sliding_window_layers == 36);
  auto sliding = chunked;
  sliding.attention.sliding_window_chunked = false;
  const auto d = one_gpu("h200", 8);
  const auto profile = calibration::datasheet_profile(d.hardware, "vllm");
  const auto attention = [&](const specs::ModelSpec& m, const simulator::BatchShape& b) {
    return simulator::StepTimeModel(m, d, profile).predict(b).op(Op::attention);
  };
  const double kv = 2.0 * 1 * 128 * 2;  // one of 8 KV heads per GPU at TP8, K and V of 128 BF16 values

  // Decoding the 9,001st token: the 12 full layers read 9,001 keys; a chunked layer the 809 of the second chunk, a
  // sliding one the last 8,192.
  simulator::BatchShape b;
  b.decode_contexts = {9000};
  CHECK(attention(chunked, b).bytes == Approx(kv * (12 * 9001.0 + 36 * 809.0)));
  CHECK(attention(sliding, b).bytes == Approx(kv * (12 * 9001.0 + 36 * 8192.0)));

  // Prefill of 10,000 tokens: query i sees i keys on a full layer; on a chunked one i for the first chunk, then
  // i - 8,192 (1..1,808) for the rest.
  simulator::BatchShape p;
  p.prefill.push_back({10000, 0, true});
  const double full = 10000.0 * 10001 / 2, chunk = 8192.0 * 8193 / 2 + 1808.0 * 1809 / 2;
  const double per_pair = 2.0 * 40 / 8 * (128 + 128);  // 5 query heads per GPU
  CHECK(attention(chunked, p).flops_prefill == Approx(per_pair * (12 * full + 36 * chunk)));
  // Within the first chunk the two agree.
  simulator::BatchShape shorter;
  shorter.prefill.push_back({4096, 0, true});
  CHECK(attention(chunked, shorter).flops_prefill == Approx(attention(sliding, shorter).flops_prefill));
}
