// Parameter and KV counts against hand counts and REFERENCE.md.
#include <catch2/catch.hpp>

#include "fleetcast/simulator/architecture.hpp"
#include "fleetcast/specs/presets.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

TEST_CASE("KV bytes per token match REFERENCE.md", "[architecture]") {
  // DeepSeek-V3 MLA: (kv_lora 512 + rope 64) x 1 byte in FP8 = 576 B per layer, 61 layers.
  const auto v3 = specs::model_preset("deepseek-v3");
  CHECK(simulator::attention_dims(v3, true).kv_bytes_per_token_per_layer == 576.0);
  CHECK(simulator::kv_bytes_per_token(v3) == 61.0 * 576.0);
  // Llama-3.1-70B GQA: 2 x 8 KV heads x 128 x 2 bytes (BF16) = 4,096 B per layer, 80 layers.
  const auto l70 = specs::model_preset("llama-3.1-70b");
  auto l70_bf16 = l70;
  l70_bf16.precision.kv_cache = specs::Precision::bf16;
  CHECK(simulator::attention_dims(l70_bf16, true).kv_bytes_per_token_per_layer == 4096.0);
  CHECK(simulator::kv_bytes_per_token(l70_bf16) == 80.0 * 4096.0);
  // DeepSeek-V4.1-Flash: 890 B per token for the whole model (REFERENCE.md section 1).
  CHECK(simulator::kv_bytes_per_token(specs::model_preset("deepseek-v4.1-flash")) == 890.0);
}

TEST_CASE("sliding-window layers stop growing at the window", "[architecture]") {
  const auto oss = specs::model_preset("gpt-oss-120b");  // 18 of 36 layers slide over 128 tokens
  const double per_layer = simulator::attention_dims(oss, true).kv_bytes_per_token_per_layer;
  CHECK(simulator::kv_bytes_for_sequence(oss, 100) == Approx(36 * 100 * per_layer));
  CHECK(simulator::kv_bytes_for_sequence(oss, 10000) == Approx(18 * 10000 * per_layer + 18 * 128 * per_layer));
}

TEST_CASE("DeepSeek-V3 parameter counts match the published 671B total and 36.6B active", "[architecture]") {
  const auto c = simulator::count_parameters(specs::model_preset("deepseek-v3"));
  // Per layer by hand: q 7168x1536 + 1536x128x192, kv_a 7168x576, kv_b 512x128x256, o 128x128x7168.
  CHECK(c.attention_per_layer ==
        7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168);
  CHECK(c.routed_expert == 3.0 * 7168 * 2048);
  const double without_mtp = c.total() - c.mtp;
  CHECK(without_mtp == Approx(671e9).epsilon(0.005));
  CHECK(c.active_per_token() == Approx(36.6e9).epsilon(0.01));  // REFERENCE.md section 5
}

TEST_CASE("DeepSeek-V4.1's attention parameters with its grouped output LoRA, by hand", "[architecture]") {
  const auto v41 = specs::model_preset("deepseek-v4.1-flash");
  // q: 5120 x 1280 + 1280 x 64 x 512; KV: 5120 x 512; output: 64 x 512 x 1024 (8 groups of 4096 -> 1024 each)
  // + 8 x 1024 x 5120; indexer: 1280 x 32 x 128 (queries) + 5120 x 128 (keys) + 5120 x 32 (head weights).
  const double q = 5120.0 * 1280 + 1280.0 * 64 * 512, kv = 5120.0 * 512;
  const double out = 64.0 * 512 * 1024 + 8.0 * 1024 * 5120;
  const double indexer = 1280.0 * 32 * 128 + 5120.0 * 128 + 5120.0 * 32;
  CHECK(simulator::count_parameters(v41).attention_per_layer == q + kv + out + indexer);
}

TEST_CASE("Qwen3.5-397B-A17B's Gated DeltaNet and gated attention parameters, by hand", "[architecture]") {
  const auto q35 = specs::model_preset("qwen3.5-397b-a17b");
  const auto c = simulator::count_parameters(q35);
  // Full attention (15 layers): q with its output gate 4096 x 32 x 256 x 2, k and v 4096 x 2 x 2 x 256, o 32 x 256
  // x 4096.
  CHECK(c.attention_per_layer == 4096.0 * 32 * 256 * 2 + 4096.0 * 2 * 2 * 256 + 32.0 * 256 * 4096);
  // Gated DeltaNet (45 layers): in_proj_qkvz 4096 x (2 x 16 x 128 + 2 x 64 x 128), in_proj_ba 4096 x 2 x 64, a
  // kernel-4 depthwise conv over q, k, v (2 x 2048 + 8192 channels), out_proj 8192 x 4096.
  CHECK(c.linear_layers == 45);
  CHECK(c.linear_attention_per_layer ==
        4096.0 * (2 * 2048 + 2 * 8192) + 4096.0 * 128 + (2.0 * 2048 + 8192) * 4 + 8192.0 * 4096);
  CHECK(c.attention_all_layers() == 15 * c.attention_per_layer + 45 * c.linear_attention_per_layer);
  // Published: 397B total, 17B active (Qwen/Qwen3.5-397B-A17B), the MTP layer in neither; the active figure counts
  // the input embedding, as the "active (fields)" column of specs/presets/SOURCES.md does.
  CHECK(c.total() - c.mtp == Approx(397e9).epsilon(0.01));
  CHECK(c.active_per_token() + c.embedding == Approx(17e9).epsilon(0.03));
}

TEST_CASE("a linear-attention layer holds a constant state from the first token on", "[architecture]") {
  const auto q35 = specs::model_preset("qwen3.5-397b-a17b");
  // Per DeltaNet layer: 64 value heads x 128 x 128 in fp32, plus 3 past inputs of the 12,288 conv channels in bf16.
  const double state = 45.0 * (64.0 * 128 * 128 * 4 + 12288.0 * 3 * 2);
  CHECK(simulator::linear_state_bytes(q35) == state);
  // Only the 15 full-attention layers grow with the context: 2 x 2 KV heads x 256 x 2 B per token each.
  const double per_token = 15.0 * 2 * 2 * 256 * 2;
  CHECK(simulator::kv_bytes_per_token(q35) == per_token);
  CHECK(simulator::kv_bytes_for_sequence(q35, 0) == 0.0);
  CHECK(simulator::kv_bytes_for_sequence(q35, 1) == Approx(state + per_token));
  CHECK(simulator::kv_bytes_for_sequence(q35, 100000) == Approx(state + 100000 * per_token));
}

TEST_CASE("presets for models outside the development set count to their published sizes", "[architecture]") {
  // Llama-3.1-405B, by hand: q and o 16384 x 128 x 128 each, k and v 16384 x 8 x 128 each; FFN 3 x 16384 x 53248.
  const auto l405 = simulator::count_parameters(specs::model_preset("llama-3.1-405b"));
  CHECK(l405.attention_per_layer == 2.0 * 16384 * 128 * 128 + 2.0 * 16384 * 8 * 128);
  CHECK(l405.dense_ffn_per_layer == 3.0 * 16384 * 53248);
  CHECK(l405.total() == Approx(405e9).epsilon(0.01));  // "405B"
  // Qwen3-30B-A3B: 128 experts of 3 x 2048 x 768 per layer; published 30.5B total, 3.3B activated.
  const auto q30 = simulator::count_parameters(specs::model_preset("qwen3-30b-a3b"));
  CHECK(q30.routed_expert == 3.0 * 2048 * 768);
  CHECK(q30.total() == Approx(30.5e9).epsilon(0.01));
  CHECK(q30.active_per_token() + q30.embedding == Approx(3.3e9).epsilon(0.03));
  // Qwen3-8B: published 8.2B.
  CHECK(simulator::count_parameters(specs::model_preset("qwen3-8b")).total() == Approx(8.2e9).epsilon(0.01));
  // gpt-oss-20b: 32 experts of 3 x 2880 x 2880 per layer; published 20.9B total and 3.6B active, the active figure
  // without the input embedding (as gpt-oss-120b's 5.1B).
  const auto oss = simulator::count_parameters(specs::model_preset("gpt-oss-20b"));
  CHECK(oss.routed_expert == 3.0 * 2880 * 2880);
  CHECK(oss.total() == Approx(20.9e9).epsilon(0.01));
  CHECK(oss.active_per_token() == Approx(3.6e9).epsilon(0.02));
}

// The dense Qwen3 and Qwen2.5 models of aiconfigurator's default list and support matrix: total and non-embedding
// sizes as their model cards give them (the three smaller Qwen3 tie the LM head to the embedding; Qwen2.5's q, k and
// v biases are not counted, under 0.1%).
TEST_CASE("the dense Qwen3 and Qwen2.5 presets count to their published sizes", "[architecture]") {
  struct Published {
    const char* preset;
    double total, non_embedding;
    bool tied;
  };
  for (const Published& m :
       {Published{"qwen3-0.6b", 0.6e9, 0.44e9, true}, Published{"qwen3-1.7b", 1.7e9, 1.4e9, true},
        Published{"qwen3-4b", 4.0e9, 3.6e9, true}, Published{"qwen3-14b", 14.8e9, 13.2e9, false},
        Published{"qwen2.5-7b", 7.61e9, 6.53e9, false}, Published{"qwen2.5-32b", 32.5e9, 31.0e9, false},
        Published{"qwen2.5-72b", 72.7e9, 70.0e9, false}}) {
    CAPTURE(m.preset);
    const auto c = simulator::count_parameters(specs::model_preset(m.preset));
    CHECK((c.lm_head == 0.0) == m.tied);
    CHECK(c.total() == Approx(m.total).epsilon(0.02));
    CHECK(c.total() - c.embedding - c.lm_head == Approx(m.non_embedding).epsilon(0.02));
  }
  // Qwen3-14B by hand: q and o 5120 x 40 x 128, k and v 5120 x 8 x 128; FFN 3 x 5120 x 17408.
  const auto q14 = simulator::count_parameters(specs::model_preset("qwen3-14b"));
  CHECK(q14.attention_per_layer == 2.0 * 5120 * 40 * 128 + 2.0 * 5120 * 8 * 128);
  CHECK(q14.dense_ffn_per_layer == 3.0 * 5120 * 17408);
}

// Gemma 3 (arXiv 2503.19786, Table 1: non-embedding parameters 3,209M, 10,759M and 25,600M for 4B, 12B and 27B; the
// ~0.4B vision encoder is not in a preset). Hand count: q and o hidden x heads x head_dim, k and v hidden x KV heads x
// head_dim, a gated GELU FFN of three matrices; the LM head tied to the embedding.
TEST_CASE("the Gemma 3 presets count to their published non-embedding sizes", "[architecture]") {
  struct Published {
    const char* preset;
    double non_embedding;
    double hidden, heads, kv_heads, head_dim, ffn;
  };
  for (const Published& m : {Published{"gemma-3-4b", 3.209e9, 2560, 8, 4, 256, 10240},
                             Published{"gemma-3-12b", 10.759e9, 3840, 16, 8, 256, 15360},
                             Published{"gemma-3-27b", 25.600e9, 5376, 32, 16, 128, 21504}}) {
    CAPTURE(m.preset);
    const auto model = specs::model_preset(m.preset);
    const auto c = simulator::count_parameters(model);
    CHECK(c.lm_head == 0.0);
    CHECK(c.attention_per_layer == 2.0 * m.hidden * m.heads * m.head_dim + 2.0 * m.hidden * m.kv_heads * m.head_dim);
    CHECK(c.dense_ffn_per_layer == 3.0 * m.hidden * m.ffn);
    CHECK(c.total() - c.embedding == Approx(m.non_embedding).epsilon(0.001));
    // Five local layers to each global one, starting with a local layer: a sixth of the layers (rounded down) global.
    CHECK(model.num_layers - model.attention.sliding_window_layers == model.num_layers / 6);
    CHECK(model.attention.sliding_window_tokens == 1024);
  }
}

// Nemotron-H and Nemotron Nano v2 (NVIDIA-NeMo/Megatron-Bridge's providers and model docs: 56B, 47B, 8B; 8.89B and
// 12.31B), Nemotron 3 Nano (31.6B total, 3.2B active) and Llama-3.3-Nemotron-Super-49B (49.9B): blocks with a mixer or
// an FFN, not both; squared-ReLU FFNs of two matrices; DeciLM's attention-free layers.
TEST_CASE("the Nemotron presets count to their published sizes", "[architecture]") {
  struct Published {
    const char* preset;
    double total, tolerance;
  };
  for (const Published& m :
       {Published{"nemotron-h-56b", 56e9, 0.01}, Published{"nemotron-h-47b", 47e9, 0.01},
        Published{"nemotron-h-8b", 8e9, 0.015}, Published{"nemotron-nano-9b-v2", 8.89e9, 0.002},
        Published{"nemotron-nano-12b-v2", 12.31e9, 0.002}, Published{"nemotron-3-nano-30b-a3b", 31.6e9, 0.002},
        Published{"llama-3.3-nemotron-super-49b-v1", 49.9e9, 0.002},
        Published{"llama-3.1-nemotron-ultra-253b-v1", 253e9, 0.005}}) {
    CAPTURE(m.preset);
    CHECK(simulator::count_parameters(specs::model_preset(m.preset)).total() == Approx(m.total).epsilon(m.tolerance));
  }
  // Nemotron-H-56B by hand: a Mamba-2 block's in_proj (z and x of 256 x 64, B and C of 8 x 256, dt per head), its
  // conv over x, B and C and its out_proj; an MLP block's up and down; 118 blocks of 54 Mamba, 10 attention, 54 MLP.
  const auto h = simulator::count_parameters(specs::model_preset("nemotron-h-56b"));
  const double mamba = 8192.0 * (2 * 16384 + 2 * 2048 + 256) + 20480.0 * 4 + 16384.0 * 8192;
  CHECK(h.linear_attention_per_layer == mamba);
  CHECK(h.dense_ffn_per_layer == 2.0 * 8192 * 32768);
  CHECK(h.attention_all_layers() == 54 * mamba + 10 * (2.0 * 8192 * 64 * 128 + 2.0 * 8192 * 8 * 128));
  CHECK(h.total() == Approx(h.attention_all_layers() + 54 * h.dense_ffn_per_layer + 2.0 * 131072 * 8192));
  // Nemotron 3 Nano: 23 MoE blocks of 128 squared-ReLU experts (6 a token) and a shared one of 3,712.
  const auto nano = simulator::count_parameters(specs::model_preset("nemotron-3-nano-30b-a3b"));
  CHECK(nano.moe_layers == 23);
  CHECK(nano.routed_expert == 2.0 * 2688 * 1856);
  CHECK(nano.active_per_token() == Approx(3.2e9).epsilon(0.02));
  // Nemotron 3 Ultra by hand: 48 Mamba-2 blocks (256 heads x 64, B and C of 8 x 128), 12 attention blocks (64 / 2 x
  // 128) and 48 LatentMoE blocks (512 squared-ReLU experts of 5,120 in a 2,048 latent, 22 a token; a shared expert of
  // 10,240 on the hidden state; the router and the two latent projections); "550B-A55B".
  const auto ultra = simulator::count_parameters(specs::model_preset("nemotron-3-ultra-550b-a55b"));
  const double ultra_mamba = 8192.0 * (2 * 16384 + 2 * 1024 + 256) + 18432.0 * 4 + 16384.0 * 8192;
  CHECK(ultra.linear_attention_per_layer == ultra_mamba);
  CHECK(ultra.attention_all_layers() == 48 * ultra_mamba + 12 * (2.0 * 8192 * 64 * 128 + 2.0 * 8192 * 2 * 128));
  CHECK(ultra.moe_layers == 48);
  CHECK(ultra.routed_expert == 2.0 * 2048 * 5120);
  CHECK(ultra.shared_experts_per_moe_layer == 2.0 * 8192 * 10240);
  CHECK(ultra.latent_projections_per_moe_layer == 2.0 * 8192 * 2048);
  const double ultra_moe_layer = 512 * ultra.routed_expert + ultra.shared_experts_per_moe_layer +
                                 ultra.latent_projections_per_moe_layer + 8192.0 * 512;
  CHECK(ultra.total() - ultra.mtp == Approx(ultra.attention_all_layers() + 48 * ultra_moe_layer + 2.0 * 131072 * 8192));
  CHECK(ultra.total() - ultra.mtp == Approx(550e9).epsilon(0.002));
  CHECK(ultra.active_per_token() == Approx(55e9).epsilon(0.02));
  // Super-49B: 49 of 80 layers attend.
  const auto super = simulator::count_parameters(specs::model_preset("llama-3.3-nemotron-super-49b-v1"));
  CHECK(super.attention_all_layers() == 49 * super.attention_per_layer);
}

// MiMo-7B (its config.json as Megatron-Bridge's MiMo test fixture and slime's script give it): Qwen2-like layers and
// one MTP module (a projection of [hidden; embedding] and one more layer), untied. Hand count, q/k/v biases left out.
TEST_CASE("the MiMo-7B preset counts its layers, its untied head and its MTP layer by hand", "[architecture]") {
  const auto c = simulator::count_parameters(specs::model_preset("mimo-7b"));
  const double attention = 4096.0 * (4096 + 2 * 1024) + 4096.0 * 4096, ffn = 3.0 * 4096 * 11008;
  CHECK(c.attention_per_layer == attention);
  CHECK(c.mtp == 2.0 * 4096 * 4096 + attention + ffn);
  CHECK(c.total() == 36 * (attention + ffn) + 2.0 * 151680 * 4096 + c.mtp);  // 7.62B and the 0.21B MTP layer
}

// A Gemma 4 layer's projections by hand: a sliding layer's q, k and v, o with heads of 256; a global layer's q, k (also
// the value) and o with heads of 512.
namespace {
struct Gemma4Attention {
  double sliding, global;
};
Gemma4Attention gemma4_attention(double hidden, double heads, double kv_heads, double global_kv_heads) {
  return {hidden * heads * 256 + hidden * 2 * kv_heads * 256 + heads * 256 * hidden,
          hidden * heads * 512 + hidden * global_kv_heads * 512 + heads * 512 * hidden};
}
}  // namespace

// Gemma 4 26B-A4B (transformers' Gemma 4 converter and config): 25 sliding layers of 8 KV heads x 256 and 5 global
// ones of 2 KV heads x 512 whose key is also the value; 16 query heads throughout; 128 experts top-8 of 704 and a
// dense MLP of 2,112 beside them in every layer; a tied head.
TEST_CASE("the Gemma 4 26B-A4B preset counts its two attention shapes and its experts by hand", "[architecture]") {
  const auto model = specs::model_preset("gemma-4-26b-a4b");
  const auto c = simulator::count_parameters(model);
  const double h = 2816;
  const auto [sliding, global] = gemma4_attention(h, 16, 8, 2);
  CHECK(c.attention_all_layers() == Approx(25 * sliding + 5 * global));
  CHECK(c.routed_expert == 3.0 * h * 704);
  CHECK(c.shared_experts_per_moe_layer == 3.0 * h * 2112);
  CHECK(c.total() == Approx(25 * sliding + 5 * global + 30 * (128 * 3.0 * h * 704 + 3.0 * h * 2112 + h * 128) +
                            262144.0 * h));                     // 25.2B
  CHECK(c.active_per_token() == Approx(3.82e9).epsilon(0.01));  // "A4B"
  // The cache per token: 5 global layers of 2 x 512 (one vector each), the 25 sliding ones stop at 1,024 tokens.
  CHECK(simulator::kv_bytes_per_token(model) == 5 * 2.0 * 512 * 2);
  CHECK(simulator::kv_bytes_for_sequence(model, 4096) == 4096 * 5 * 2.0 * 512 * 2 + 25 * 1024 * 2.0 * 8 * 256 * 2);
}

// Gemma 4 31B (transformers' Gemma 4 converter): the 26B-A4B's two attention shapes with 16 / 4 KV heads, 32 query
// heads, and a dense gated GELU MLP of 4 x 5,376 in all 60 layers; "31B" with the vision encoder.
TEST_CASE("the Gemma 4 31B preset counts its two attention shapes and its dense MLP by hand", "[architecture]") {
  const auto model = specs::model_preset("gemma-4-31b");
  const auto c = simulator::count_parameters(model);
  const double h = 5376;
  const auto [sliding, global] = gemma4_attention(h, 32, 16, 4);
  CHECK(c.attention_all_layers() == Approx(50 * sliding + 10 * global));
  CHECK(c.dense_ffn_per_layer == 3.0 * h * 21504);
  CHECK(c.total() == Approx(50 * sliding + 10 * global + 60 * 3.0 * h * 21504 + 262144.0 * h));
  CHECK(c.total() == Approx(30.7e9).epsilon(0.01));
  // 10 global layers of 4 x 512 per token; the 50 sliding ones stop at 1,024 tokens.
  CHECK(simulator::kv_bytes_per_token(model) == 10 * 4.0 * 512 * 2);
  CHECK(simulator::kv_bytes_for_sequence(model, 4096) == 4096 * 10 * 4.0 * 512 * 2 + 50 * 1024 * 2.0 * 16 * 256 * 2);
}

// Llama 2 (arXiv 2307.09288: 7B, 13B and 70B; grouped-query attention for 70B only) and Mixtral (Mistral AI: 8x7B of
// 46.7B with 12.9B active per token, 8x22B of 141B with 39B active, both counting the embedding and the LM head).
TEST_CASE("the Llama 2 and Mixtral presets count to their published sizes", "[architecture]") {
  const auto l7 = simulator::count_parameters(specs::model_preset("llama-2-7b"));
  CHECK(l7.attention_per_layer == 4.0 * 4096 * 4096);  // multi-head: k and v as wide as q
  CHECK(l7.total() == Approx(6.74e9).epsilon(0.01));
  CHECK(simulator::count_parameters(specs::model_preset("llama-2-13b")).total() == Approx(13.0e9).epsilon(0.01));
  const auto l70 = simulator::count_parameters(specs::model_preset("llama-2-70b"));
  CHECK(l70.attention_per_layer == 2.0 * 8192 * 8192 + 2.0 * 8192 * 8 * 128);
  CHECK(l70.total() == Approx(69.0e9).epsilon(0.01));
  const auto m7 = simulator::count_parameters(specs::model_preset("mixtral-8x7b"));
  CHECK(m7.routed_expert == 3.0 * 4096 * 14336);
  CHECK(m7.total() == Approx(46.7e9).epsilon(0.01));
  CHECK(m7.active_per_token() + m7.embedding == Approx(12.9e9).epsilon(0.01));
  const auto m22 = simulator::count_parameters(specs::model_preset("mixtral-8x22b"));
  CHECK(m22.total() == Approx(141e9).epsilon(0.01));
  CHECK(m22.active_per_token() + m22.embedding == Approx(39e9).epsilon(0.02));
}

TEST_CASE("GLM-4.7 and Qwen3-Next-80B-A3B count to their published sizes", "[architecture]") {
  // GLM-4.7 (GLM-4.5's architecture): attention 5120 x 96 x 128 (q, o) + 5120 x 8 x 128 (k, v) per layer; 3 dense
  // layers of 3 x 5120 x 12288; 89 MoE layers of 160 + 1 experts of 3 x 5120 x 1536. Published 355B total and 32B
  // active, the active figure without the embedding and the LM head.
  const auto glm = simulator::count_parameters(specs::model_preset("glm-4.7"));
  CHECK(glm.attention_per_layer == 2.0 * 5120 * 96 * 128 + 2.0 * 5120 * 8 * 128);
  CHECK(glm.moe_layers == 89);
  CHECK(glm.total() == Approx(355e9).epsilon(0.01));
  CHECK(glm.active_per_token() - glm.lm_head == Approx(32e9).epsilon(0.03));
  // GLM-4.5-Air: 1 dense layer of 3 x 4096 x 10944, 45 MoE layers of 128 + 1 experts of 3 x 4096 x 1408 top-8.
  // Published 106B total and 12B active (without the embedding and the LM head, as GLM-4.7's).
  const auto air = simulator::count_parameters(specs::model_preset("glm-4.5-air"));
  CHECK(air.moe_layers == 45);
  CHECK(air.routed_expert == 3.0 * 4096 * 1408);
  CHECK(air.total() == Approx(106e9).epsilon(0.01));
  CHECK(air.active_per_token() - air.lm_head == Approx(12e9).epsilon(0.02));
  // Qwen3-Next-80B-A3B: 12 gated full-attention layers and 36 Gated DeltaNet layers, 512 experts of 3 x 2048 x 512
  // top-10 + 1 shared. Published: 80B total, 79B without the embeddings, "3B" activated (A3B; 3.25B here without the
  // embeddings).
  const auto next = simulator::count_parameters(specs::model_preset("qwen3-next-80b-a3b"));
  CHECK(next.linear_layers == 36);
  CHECK(next.attention_per_layer == 2048.0 * 16 * 256 * 2 + 2048.0 * 2 * 2 * 256 + 16.0 * 256 * 2048);
  CHECK(next.routed_expert == 3.0 * 2048 * 512);
  CHECK(next.total() - next.embedding - next.lm_head == Approx(79e9).epsilon(0.01));
  CHECK(next.active_per_token() - next.lm_head == Approx(3e9).epsilon(0.1));
}

TEST_CASE("Qwen3.5-35B-A3B counts to its published size", "[architecture]") {
  // 10 gated full-attention and 30 Gated DeltaNet layers of Qwen3-Next's widths, 256 experts of 3 x 2048 x 512 top-8
  // + 1 shared. Published 35B total (the vision encoder included, which the preset leaves out) and 3B activated,
  // without the input embedding as gpt-oss's figures.
  const auto q = simulator::count_parameters(specs::model_preset("qwen3.5-35b-a3b"));
  CHECK(q.linear_layers == 30);
  CHECK(q.routed_expert == 3.0 * 2048 * 512);
  CHECK(q.total() - q.mtp == Approx(35e9).epsilon(0.03));
  CHECK(q.active_per_token() == Approx(3e9).epsilon(0.03));
}

TEST_CASE("presets added for models outside the development set count to their published sizes", "[architecture]") {
  auto count = [](const char* name) { return simulator::count_parameters(specs::model_preset(name)); };
  // Qwen3-Coder-480B-A35B: 62 layers, 160 experts of 3 x 6144 x 2560 top-8; published 480B total, 35B activated.
  const auto coder = count("qwen3-coder-480b-a35b");
  CHECK(coder.routed_expert == 3.0 * 6144 * 2560);
  CHECK(coder.total() == Approx(480e9).epsilon(0.01));
  CHECK(coder.active_per_token() == Approx(35e9).epsilon(0.03));
  // MiniMax-M2.7: MiniMax-M2.5's shape (229B / 10B).
  CHECK(count("minimax-m2.7").total() == Approx(count("minimax-m2.5").total()));
  // Qwen3.5-27B: 48 Gated DeltaNet and 16 gated full-attention layers, dense FFN; published 27B.
  const auto q27 = count("qwen3.5-27b");
  CHECK(q27.linear_layers == 48);
  CHECK(q27.total() - q27.mtp == Approx(27e9).epsilon(0.01));
  // Llama 4: Scout's 16 experts top-1 + a shared one on all 48 layers (published 109B with the 0.9B vision
  // encoder the preset leaves out, 17B active); Maverick's 128 experts on 24 layers and 24 dense layers of 16384
  // (400B, 17B active).
  const auto scout = count("llama-4-scout-17b-16e");
  CHECK(scout.moe_layers == 48);
  CHECK(scout.total() == Approx(109e9).epsilon(0.015));
  CHECK(scout.active_per_token() + scout.embedding == Approx(17e9).epsilon(0.02));  // "17B" counts both tables
  const auto maverick = count("llama-4-maverick-17b-128e");
  CHECK(maverick.moe_layers == 24);
  CHECK(maverick.dense_ffn_per_layer == 3.0 * 5120 * 16384);
  CHECK(maverick.total() == Approx(400e9).epsilon(0.01));
  CHECK(maverick.active_per_token() + maverick.embedding == Approx(17e9).epsilon(0.02));
  // GLM-4.7-Flash, "30B-A3B": 47 MLA layers of 20 heads, 1 dense, 46 of 64 + 1 experts of 3 x 2048 x 1536 top-4.
  const auto flash = count("glm-4.7-flash");
  CHECK(flash.moe_layers == 46);
  CHECK(flash.routed_expert == 3.0 * 2048 * 1536);
  CHECK(flash.total() == Approx(30e9).epsilon(0.01));
  CHECK(flash.active_per_token() - flash.lm_head == Approx(3e9).epsilon(0.1));
  // MiMo-V2-Flash: 309B total, 15B active (without its MTP blocks).
  const auto mimo = count("mimo-v2-flash");
  CHECK(mimo.total() - mimo.mtp == Approx(309e9).epsilon(0.01));
  CHECK(mimo.active_per_token() == Approx(15e9).epsilon(0.03));
  // DeepSeek-V4-Pro: 1.6T total with its MTP layer, 49B active.
  const auto pro = count("deepseek-v4-pro");
  CHECK(pro.total() == Approx(1.6e12).epsilon(0.01));
  CHECK(pro.active_per_token() == Approx(49e9).epsilon(0.02));
}

TEST_CASE("DeepSeek Sparse Attention models: V3.2 is V3 and an indexer; GLM-5 counts to 744B", "[architecture]") {
  // V3.2's indexer per layer, by hand: queries 1536 x 64 x 128 from the q LoRA, one key 7168 x 128, one weight per
  // head 7168 x 64 (13.96M per layer).
  const auto v3 = simulator::count_parameters(specs::model_preset("deepseek-v3"));
  const auto v32 = simulator::count_parameters(specs::model_preset("deepseek-v3.2"));
  CHECK(v32.attention_per_layer - v3.attention_per_layer == 1536.0 * 64 * 128 + 7168.0 * 128 + 7168.0 * 64);
  CHECK(v32.total() == Approx(685e9).epsilon(0.01));  // "685B": 671B and the 14B MTP module, as V3's release
  // GLM-5: 78 MLA layers (64 heads, q LoRA 2048, nope 192, rope 64, v 256), 3 dense, 256 experts of 3 x 6144 x 2048
  // top-8 + 1 shared; published 744B total without its MTP layer and 40B active.
  const auto glm = simulator::count_parameters(specs::model_preset("glm-5"));
  CHECK(glm.moe_layers == 75);
  CHECK(glm.total() - glm.mtp == Approx(744e9).epsilon(0.01));
  CHECK(glm.active_per_token() - glm.lm_head == Approx(40e9).epsilon(0.03));
  // Its cache per token: the 576-value latent in bf16 and the 132-byte indexer key on each of 78 layers.
  CHECK(simulator::kv_bytes_per_token(specs::model_preset("glm-5")) == Approx(78 * (576 * 2 + 132)));
}

TEST_CASE("MiniMax-M3 counts to 426B of text model, 427B with its vision tower", "[architecture]") {
  const auto m3 = simulator::count_parameters(specs::model_preset("minimax-m3"));
  // By hand: 60 GQA layers (q and o 6144 x 64 x 128 each, k and v 6144 x 4 x 128 each); the indexer on 57 of them
  // (4 query heads and one key of 128 from the hidden state); 3 dense FFNs of 3 x 6144 x 12288; 57 MoE layers of
  // 128 routed and 1 shared expert of 3 x 6144 x 3072 and a 6144 x 128 router; untied 200064 x 6144 embedding and head.
  const double attention = 60 * (2.0 * 6144 * 64 * 128 + 2.0 * 6144 * 4 * 128) + 57 * 6144.0 * 5 * 128;
  const double expert = 3.0 * 6144 * 3072;
  const double ffn = 3 * 3.0 * 6144 * 12288 + 57 * (129 * expert + 6144.0 * 128);
  CHECK(m3.total() == Approx(attention + ffn + 2.0 * 200064 * 6144));
  CHECK(m3.total() == Approx(426.2e9).epsilon(0.001));
  // Published: 427B with the vision tower (vLLM's recipe), whose 32 layers of 1280 hold about 0.6B more; 23-26B
  // active by the sources that give one.
  CHECK(m3.total() + 0.6e9 == Approx(427e9).epsilon(0.002));
  CHECK(m3.active_per_token() == Approx(24.7e9).epsilon(0.01));
}
