// Helpers the engine's op and model-step tests share: a ReadRange over a host vector, and preset-like GQA MoE
// and MLA models small enough for the reference step to run every sequence.
#pragma once

#include <cstddef>
#include <vector>

#include "fleetcast/engine/check.hpp"
#include "fleetcast/specs/model.hpp"

namespace fleetcast::engine::test {

// Reads `count` values from `offset` of `v` (which must outlive the range) as floats.
template <class T>
ReadRange reader(const std::vector<T>& v) {
  return [&v](std::size_t offset, std::size_t count) {
    return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(offset),
                              v.begin() + static_cast<std::ptrdiff_t>(offset + count));
  };
}

// GQA 4 query / 2 kv heads of 16, one dense layer then MoE layers of 8 experts (top 2) with a shared expert.
inline specs::ModelSpec tiny_moe_model() {
  specs::ModelSpec m;
  m.name = "tiny-moe";
  m.num_layers = 3;
  m.hidden_size = 64;
  m.vocab_size = 101;
  m.attention.type = specs::AttentionType::gqa;
  m.attention.num_query_heads = 4;
  m.attention.num_kv_heads = 2;
  m.attention.head_dim = 16;
  m.dense_layers = 1;
  m.dense_ffn_width = 48;
  m.moe = specs::MoeSpec{8, 2, 1, 32, 24};
  return m;
}

// DeepSeek-V3's structure at widths the reference can run on every sequence: MLA with 4 heads (q LoRA 24,
// latent 32, rope 8, nope 16, v 12), one dense layer, then MoE layers of 16 experts top-2 with a shared
// expert. Named deepseek-v3 so that the step routes it as DeepSeek-V3 does (sigmoid, 8 groups, best 4).
inline specs::ModelSpec tiny_mla_model(int q_lora) {
  specs::ModelSpec m;
  m.name = "deepseek-v3";
  m.num_layers = 3;
  m.hidden_size = 64;
  m.vocab_size = 97;
  m.attention.type = specs::AttentionType::mla;
  m.attention.num_query_heads = 4;
  m.attention.q_lora_rank = q_lora;
  m.attention.kv_lora_rank = 32;
  m.attention.qk_rope_head_dim = 8;
  m.attention.qk_nope_head_dim = 16;
  m.attention.v_head_dim = 12;
  m.dense_layers = 1;
  m.dense_ffn_width = 48;
  m.moe = specs::MoeSpec{16, 2, 1, 16, 20};
  return m;
}

}  // namespace fleetcast::engine::test
