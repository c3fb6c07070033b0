#include "model_step_problem.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "../cpu/parallel.hpp"
#include "../reference/model_step_reference.hpp"
#include "tensor_init.hpp"

namespace fleetcast::engine {

namespace {

// Element i is stored_value(fp32, seed, i, amplitude, offset), filled on all threads.
std::vector<float> filled(std::uint64_t seed, std::int64_t count, float amplitude, float offset = 0.0f) {
  const TensorInit t{seed, static_cast<std::size_t>(count), amplitude, offset};
  std::vector<float> v(t.count);
  constexpr std::int64_t kChunk = 1 << 16;
  cpu::parallel_for((count + kChunk - 1) / kChunk, kChunk, [&](std::int64_t c) {
    const std::int64_t end = std::min(count, (c + 1) * kChunk);
    for (std::int64_t i = c * kChunk; i < end; ++i) v[i] = t.value(Storage::fp32, static_cast<std::size_t>(i));
  });
  return v;
}

// A uniform [-a, a) weight has variance a^2 / 3: a = sqrt(3 / fan_in) gives outputs of unit variance.
float weight_amplitude(std::int64_t fan_in) { return static_cast<float>(std::sqrt(3.0 / static_cast<double>(fan_in))); }

// RMSNorm gains in [0.5, 1.5).
std::vector<float> norm_gain(std::uint64_t seed, std::int64_t hidden) { return filled(seed, hidden, 0.5f, 1.0f); }

}  // namespace

ModelStepProblem::ModelStepProblem(const specs::ModelSpec& model, const StepShape& s)
    : shape(s), dims(step_dims(model, s)) {
  const StepDims& d = dims;
  const std::int64_t H = d.hidden, dh = d.head_dim;
  pages_per_seq = (s.context + s.new_tokens + kStepPageSize - 1) / kStepPageSize;
  num_pages = s.batch * pages_per_seq;
  scale = 1.0 / std::sqrt(static_cast<double>(dh));
  for (std::int64_t l = 0; l < d.layers; ++l) {
    const std::uint64_t seed = 10000 + 100 * static_cast<std::uint64_t>(l);
    StepLayer layer;
    layer.dense = d.is_dense(l);
    layer.attn_norm = norm_gain(seed + 1, H);
    if (d.mla) {
      const std::int64_t q_in = d.q_lora > 0 ? d.q_lora : H;
      if (d.q_lora > 0) {
        layer.q_a = filled(seed + 14, d.q_lora * H, weight_amplitude(H));
        layer.q_a_norm = norm_gain(seed + 15, d.q_lora);
      }
      layer.q_b = filled(seed + 16, d.q_heads * dh * q_in, weight_amplitude(q_in));
      layer.kv_a = filled(seed + 17, d.cache_entry() * H, weight_amplitude(H));
      layer.kv_a_norm = norm_gain(seed + 18, d.kv_lora);
      layer.kv_b = filled(seed + 19, d.q_heads * (d.nope + d.v_dim) * d.kv_lora, weight_amplitude(d.kv_lora));
      layer.o = filled(seed + 3, H * d.q_heads * d.v_dim, weight_amplitude(d.q_heads * d.v_dim));
    } else {
      layer.qkv = filled(seed + 2, d.qkv_width() * H, weight_amplitude(H));
      layer.o = filled(seed + 3, H * d.q_heads * dh, weight_amplitude(d.q_heads * dh));
    }
    layer.mlp_norm = norm_gain(seed + 4, H);
    if (layer.dense) {
      layer.gate_up = filled(seed + 5, 2 * d.dense_width * H, weight_amplitude(H));
      layer.down = filled(seed + 6, H * d.dense_width, weight_amplitude(d.dense_width));
    } else {
      const std::int64_t W = d.expert_width;
      layer.router = filled(seed + 7, d.experts * H, weight_amplitude(H));
      layer.experts_gate_up = filled(seed + 8, d.local_experts * 2 * W * H, weight_amplitude(H));
      layer.experts_down = filled(seed + 9, d.local_experts * H * W, weight_amplitude(W));
      if (d.shared_width > 0) {
        layer.shared_gate_up = filled(seed + 10, 2 * d.shared_width * H, weight_amplitude(H));
        layer.shared_down = filled(seed + 11, H * d.shared_width, weight_amplitude(d.shared_width));
      }
    }
    const std::int64_t cache = num_pages * kStepPageSize * d.kv_heads * d.cache_entry();
    layer.k_cache = filled(seed + 12, cache, 1.0f);
    if (!d.mla) layer.v_cache = filled(seed + 13, cache, 1.0f);
    layers.push_back(std::move(layer));
  }
  embedding = filled(9001, d.vocab_local * H, 1.0f);
  final_norm = norm_gain(9002, H);
  lm_head = filled(9003, d.vocab_local * H, weight_amplitude(H));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t j = 0; j < s.new_tokens; ++j) {
      const auto i = static_cast<std::uint64_t>(b * s.new_tokens + j);
      token_ids.push_back(static_cast<std::int32_t>(mix64(9004 + i) % static_cast<std::uint64_t>(d.vocab_local)));
      positions.push_back(static_cast<std::int32_t>(s.context + j));
    }
  }
  block_table.resize(static_cast<std::size_t>(num_pages));
  std::iota(block_table.begin(), block_table.end(), 0);
  for (std::int64_t i = num_pages - 1; i > 0; --i)
    std::swap(block_table[i],
              block_table[static_cast<std::int64_t>(mix64(9005 + static_cast<std::uint64_t>(i)) % (i + 1))]);
  const std::int64_t span = s.context + s.new_tokens, rd = d.rotated_dim(), half = rd / 2;
  cos_sin.resize(static_cast<std::size_t>(span * rd));
  for (std::int64_t p = 0; p < span; ++p) {
    for (std::int64_t i = 0; i < half; ++i) {
      const double angle =
          static_cast<double>(p) * std::pow(kRopeTheta, -2.0 * static_cast<double>(i) / static_cast<double>(rd));
      cos_sin[p * rd + i] = static_cast<float>(std::cos(angle));
      cos_sin[p * rd + half + i] = static_cast<float>(std::sin(angle));
    }
  }
}

std::int64_t ModelStepProblem::cache_offset(std::int64_t b, std::int64_t t, std::int64_t h) const {
  const std::int64_t page = block_table[b * pages_per_seq + t / kStepPageSize];
  return ((page * kStepPageSize + t % kStepPageSize) * dims.kv_heads + h) * dims.cache_entry();
}

double ModelStepProblem::reference_work_per_sequence() const {
  const StepDims& d = dims;
  const double H = static_cast<double>(d.hidden), N = static_cast<double>(shape.new_tokens);
  double per_token = 0.0;
  const double Q = static_cast<double>(d.q_heads), C = static_cast<double>(shape.context);
  double attention = 0.0;
  for (std::int64_t l = 0; l < d.layers; ++l) {
    if (d.mla) {
      // The reference runs MLA un-absorbed: it expands every cached latent into each head's key and value.
      const double kvl = static_cast<double>(d.kv_lora), q_in = static_cast<double>(d.q_lora > 0 ? d.q_lora : d.hidden);
      per_token += (d.q_lora > 0 ? H * static_cast<double>(d.q_lora) : 0.0) +
                   q_in * Q * static_cast<double>(d.head_dim) + H * static_cast<double>(d.cache_entry()) +
                   H * Q * static_cast<double>(d.v_dim);
      attention += (C + N) * Q * static_cast<double>(d.nope + d.v_dim) * kvl +
                   Q * static_cast<double>(d.head_dim + d.v_dim) * (N * C + N * N / 2.0);
    } else {
      per_token += H * static_cast<double>(d.qkv_width() + d.q_heads * d.head_dim);
      attention += Q * static_cast<double>(d.head_dim) * 2.0 * (N * C + N * N / 2.0);
    }
    if (d.is_dense(l)) {
      per_token += 3.0 * H * static_cast<double>(d.dense_width);
    } else {
      per_token +=
          H * static_cast<double>(d.experts) + 3.0 * H * static_cast<double>(d.top_k * d.expert_width + d.shared_width);
    }
  }
  return N * per_token + attention + H * static_cast<double>(d.vocab_local);
}

CheckResult ModelStepProblem::check(const ReadRange& logits, const std::string& what, double tolerance,
                                    bool full) const {
  Comparison cmp(what, tolerance);
  const double work = reference_work_per_sequence();
  std::vector<std::int64_t> sequences;
  if (full) {
    sequences = sample_indices(shape.batch, shape.batch, true);
  } else if (2.0 * work <= kReferenceBudget) {
    sequences = sample_indices(shape.batch, 2, false);
  } else if (work <= kReferenceBudget) {
    sequences = {0};
  }
  const std::int64_t V = dims.vocab_local;
  if (sequences.empty()) {  // past the reference's budget: at least no NaN or infinity came out
    const auto got = logits(0, static_cast<std::size_t>(V));
    for (std::int64_t i = 0; i < V; ++i)
      if (!std::isfinite(got[i])) cmp.add(got[i], 0.0, static_cast<std::size_t>(i));
  }
  for (const auto b : sequences) {
    const auto expected = reference::model_step_logits(*this, b);
    const auto got = logits(static_cast<std::size_t>(b * V), static_cast<std::size_t>(V));
    for (std::int64_t i = 0; i < V; ++i) cmp.add(got[i], expected[i], b * V + i);
  }
  return cmp.finish();
}

}  // namespace fleetcast::engine
