// Helpers the engine's op and model-step tests share: a ReadRange over a host vector, and a preset-like MoE
// model small enough for the reference step to run every sequence.
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

}  // namespace fleetcast::engine::test
