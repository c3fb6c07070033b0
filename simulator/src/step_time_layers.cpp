// The attention, FFN and communication operators of StepTimeModel.
#include <algorithm>
#include <cmath>

#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {
namespace {

// Query-key pairs of a chunk of `t` new tokens after `p` cached ones when each query sees at most `cap`
// tokens (itself included): sum over i = 1..t of min(p + i, cap).
double attended_pairs(double t, double p, double cap) {
  const double uncapped = std::clamp(cap - p, 0.0, t);  // queries that see their whole prefix
  return uncapped * p + uncapped * (uncapped + 1.0) / 2.0 + (t - uncapped) * cap;
}

// The same under chunked attention: query i (1-based) sees ((i - 1) mod chunk) + 1 keys, those of its own chunk.
double chunked_pairs(double t, double p, double chunk) {
  const auto seen_up_to = [chunk](double n) {  // sum over i = 1..n
    const double whole = std::floor(n / chunk), rest = n - whole * chunk;
    return whole * chunk * (chunk + 1.0) / 2.0 + rest * (rest + 1.0) / 2.0;
  };
  return seen_up_to(p + t) - seen_up_to(p);
}

constexpr double kUncapped = 1e18;

}  // namespace

void StepTimeModel::cost_attention(const BatchShape& b, const Layers& l, StepTime& st) const {
  const auto& a = model_.attention;
  const int tp = deployment_.replica.tp;
  const double heads = static_cast<double>(a.num_query_heads) / tp;
  const AttentionDims dec_dims = attention_dims(model_, true);
  const AttentionDims pre_dims = attention_dims(model_, false);
  // Per GPU: GQA shards KV heads over TP ranks (replicating them when there are fewer heads than ranks);
  // a latent or compressed KV is needed whole by every rank.
  double kv_share = 1.0;
  if (a.type == specs::AttentionType::gqa) {
    kv_share = std::ceil(static_cast<double>(a.num_kv_heads) / tp) / a.num_kv_heads;
  }
  const double kv_bytes = dec_dims.kv_bytes_per_token_per_layer * kv_share;
  const bool csa = a.type == specs::AttentionType::csa;
  const double window = a.sliding_window_tokens > 0 ? a.sliding_window_tokens : kUncapped;
  const double full_layers = l.softmax() - (csa ? 0.0 : l.sliding);
  // Global layers with a shape of their own (Gemma 4): the sliding layers are counted apart below, at their shape;
  // otherwise in the sums with the full ones, as one shape serves both.
  const bool global_shape = a.type == specs::AttentionType::gqa && a.has_global_shape();
  const double sliding_layers = csa || global_shape ? 0.0 : l.sliding;
  const double ratio = std::max(1, a.compression_ratio);
  // mla with an indexer (DeepSeek-V3.2, GLM-5): every layer attends at most top_k keys and runs the indexer.
  const bool sparse_mla = a.type == specs::AttentionType::mla && a.sparse();
  // gqa with an indexer (MiniMax-M3): the sparse layers attend at most top_k keys and run the indexer, the rest of
  // the full layers attend every key. This pass's share of them (an MTP layer's is the backbone's average).
  const bool sparse_gqa = a.type == specs::AttentionType::gqa && a.sparse();
  const double sparse_layers = sparse_gqa ? full_layers * a.sparse_layers / model_.softmax_attention_layers() : 0.0;
  const double dense_layers = full_layers - sparse_layers;
  const bool indexed = csa || sparse_mla || sparse_gqa;
  const bool chunked = a.sliding_window_chunked && !csa;
  const double top_k = a.sparse() ? a.sparse_top_k_tokens : kUncapped;
  // A decoding sequence runs 1 + drafts queries, the j-th seeing context + j tokens (itself included);
  // the kernel reads the sequence's KV once for all of them.
  const double queries = 1.0 + b.draft_tokens;

  // Attended (query, key) pairs summed over the layers, and KV entries read.
  double pre_pairs = 0.0, dec_pairs = 0.0, pre_read = 0.0, dec_read = 0.0;
  // Indexer (csa, sparse mla): (query, compressed entry) pairs scored and indexer keys read, on the layers that own an
  // indexer (the others reuse a source layer's selection).
  double pre_index = 0.0, dec_index = 0.0, pre_index_read = 0.0, dec_index_read = 0.0;
  // Layers that run the indexer: csa's own count of its layers; sparse mla's every softmax layer (a linear-attention
  // layer has none); sparse gqa's own count of its sparse layers.
  double index_layers = 0.0;
  if (csa)
    index_layers = l.all * (a.indexer_layers > 0 ? static_cast<double>(a.indexer_layers) / model_.num_layers : 1.0);
  if (sparse_mla) index_layers = full_layers;
  if (sparse_gqa)
    index_layers =
        sparse_layers * (a.indexer_layers > 0 ? static_cast<double>(a.indexer_layers) / a.sparse_layers : 1.0);
  for (int c : b.decode_contexts) {
    const double last = c + queries;  // tokens the last query sees
    if (csa) {
      // Each query gathers its own top-k compressed entries; the window is shared.
      double selected = 0.0;
      for (double n = c + 1.0; n <= last; n += 1.0) {
        selected += std::min(std::ceil(n / ratio), static_cast<double>(a.sparse_top_k_tokens));
      }
      dec_pairs += l.all * (selected + attended_pairs(queries, c, window));
      dec_read += l.all * (selected + std::min(last, window));
      dec_index += index_layers * (queries * c + queries * (queries + 1.0) / 2.0) / ratio;
      dec_index_read += index_layers * last / ratio;
    } else if (sparse_mla) {
      // DeepSeek Sparse Attention: each query attends its top-k latents; the indexer scores every key before it.
      const double selected = attended_pairs(queries, c, top_k);
      dec_pairs += full_layers * selected;
      dec_read += full_layers * selected;
      dec_index += index_layers * (queries * c + queries * (queries + 1.0) / 2.0);
      dec_index_read += index_layers * last;
    } else if (sparse_gqa) {
      // MiniMax Sparse Attention: the kernel gathers each KV head's selected blocks, at most top_k keys.
      dec_pairs +=
          sparse_layers * attended_pairs(queries, c, top_k) + dense_layers * attended_pairs(queries, c, kUncapped);
      dec_read += sparse_layers * std::min(last, top_k) + dense_layers * last;
      dec_index += index_layers * (queries * c + queries * (queries + 1.0) / 2.0);
      dec_index_read += index_layers * last;
    } else if (chunked) {
      // The keys from the first query's chunk start to the last query.
      dec_pairs +=
          full_layers * attended_pairs(queries, c, kUncapped) + sliding_layers * chunked_pairs(queries, c, window);
      dec_read += full_layers * last + sliding_layers * (last - std::floor(c / window) * window);
    } else {
      dec_pairs +=
          full_layers * attended_pairs(queries, c, kUncapped) + sliding_layers * attended_pairs(queries, c, window);
      dec_read += full_layers * last + sliding_layers * std::min(last, window);
    }
  }
  for (const PrefillChunk& ch : b.prefill) {
    const double t = ch.tokens, p = ch.context_before;
    if (csa) {
      // Each query attends its top-k compressed entries and its window; the indexer scores every
      // compressed entry before it.
      const double pairs = attended_pairs(t, p, window) + t * std::min<double>(a.sparse_top_k_tokens, (p + t) / ratio);
      pre_pairs += l.all * pairs;
      pre_read += l.all * ((p + t) / ratio + std::min(p + t, window));
      pre_index += index_layers * (t * p + t * (t + 1.0) / 2.0) / ratio;
      pre_index_read += index_layers * (p + t) / ratio;
    } else if (sparse_mla) {
      pre_pairs += full_layers * attended_pairs(t, p, top_k);
      pre_read += full_layers * (p + t);
      pre_index += index_layers * (t * p + t * (t + 1.0) / 2.0);
      pre_index_read += index_layers * (p + t);
    } else if (sparse_gqa) {
      pre_pairs += sparse_layers * attended_pairs(t, p, top_k) + dense_layers * attended_pairs(t, p, kUncapped);
      pre_read += full_layers * (p + t);
      pre_index += index_layers * (t * p + t * (t + 1.0) / 2.0);
      pre_index_read += index_layers * (p + t);
    } else if (chunked) {
      pre_pairs += full_layers * attended_pairs(t, p, kUncapped) + sliding_layers * chunked_pairs(t, p, window);
      pre_read += full_layers * (p + t) + sliding_layers * (p + t - std::floor(p / window) * window);
    } else {
      pre_pairs += full_layers * attended_pairs(t, p, kUncapped) + sliding_layers * attended_pairs(t, p, window);
      pre_read += full_layers * (p + t) + sliding_layers * std::min(p + t, window);
    }
  }

  // The sliding layers of a model whose global layers have their own shape, and the global layers' KV heads per GPU.
  double pre_pairs_sw = 0.0, dec_pairs_sw = 0.0, pre_read_sw = 0.0, dec_read_sw = 0.0;
  double full_kv_bytes = kv_bytes;
  if (global_shape) {
    const double sw = l.sliding;
    for (int c : b.decode_contexts) {
      const double last = c + queries;
      dec_pairs_sw += sw * (chunked ? chunked_pairs(queries, c, window) : attended_pairs(queries, c, window));
      dec_read_sw += sw * (chunked ? last - std::floor(c / window) * window : std::min(last, window));
    }
    for (const PrefillChunk& ch : b.prefill) {
      const double t = ch.tokens, p = ch.context_before;
      pre_pairs_sw += sw * (chunked ? chunked_pairs(t, p, window) : attended_pairs(t, p, window));
      pre_read_sw += sw * (chunked ? p + t - std::floor(p / window) * window : std::min(p + t, window));
    }
    const double global_kv = a.full_kv_heads();
    full_kv_bytes = dec_dims.full_kv_bytes_per_token_per_layer * std::ceil(global_kv / tp) / global_kv;
  }

  // Two separate kernels as engines run them: prefill attention (compute-bound) and decode attention
  // (bound by reading the KV cache). The indexer (csa, sparse mla) is a kernel of its own on the layers that own one,
  // and runs in FP8 (DeepSeek-V3.2's lightning indexer: FP8 queries and keys, ReLU-weighted head sum).
  const int attention_kernels = static_cast<int>(l.softmax());
  const int indexer_kernels = static_cast<int>(indexed ? index_layers : 0.0);
  OpCost pre, dec, pre_ix, dec_ix;
  if (global_shape) {
    pre.flops_prefill =
        2.0 * heads *
        ((pre_dims.full_qk_dim + pre_dims.full_v_dim) * pre_pairs + (pre_dims.qk_dim + pre_dims.v_dim) * pre_pairs_sw);
    pre.bytes = full_kv_bytes * pre_read + kv_bytes * pre_read_sw;
    dec.flops_decode =
        2.0 * heads *
        ((dec_dims.full_qk_dim + dec_dims.full_v_dim) * dec_pairs + (dec_dims.qk_dim + dec_dims.v_dim) * dec_pairs_sw);
    dec.bytes = full_kv_bytes * dec_read + kv_bytes * dec_read_sw;
  } else {
    pre.flops_prefill = 2.0 * heads * (pre_dims.qk_dim + pre_dims.v_dim) * pre_pairs;
    pre.bytes = kv_bytes * pre_read;
    dec.flops_decode = 2.0 * heads * (dec_dims.qk_dim + dec_dims.v_dim) * dec_pairs;
    dec.bytes = kv_bytes * dec_read;
  }
  if (indexed) {
    // Both share one indexer key among the heads, held whole by every rank: DeepSeek's in FP8 (one byte per
    // element), MiniMax's in the KV cache's format. MiniMax's heads are split over TP ranks as the KV heads they
    // select for are (replicated when fewer than ranks, vLLM's max(1, heads / tp)).
    const double index_flops_per_pair =
        2.0 * a.indexer_head_dim *
        (sparse_gqa ? std::ceil(static_cast<double>(a.indexer_heads) / tp) : static_cast<double>(a.indexer_heads) / tp);
    const double index_key_bytes = sparse_gqa ? dec_dims.indexer_key_bytes_per_token_per_layer : a.indexer_head_dim;
    pre_ix.flops_prefill = index_flops_per_pair * pre_index;
    dec_ix.flops_decode = index_flops_per_pair * dec_index;
    pre_ix.bytes = pre_index_read * index_key_bytes;
    dec_ix.bytes = dec_index_read * index_key_bytes;
  }
  // DeepSeek's lightning indexer computes in FP8; MiniMax's in the KV cache's format.
  const double ix_flops = rates_.matmul_flops(sparse_gqa ? model_.precision.kv_cache : specs::Precision::fp8);
  const double hbm = rates_.hbm_bytes_per_s();
  auto time = [&](const OpCost& c, double flops_per_s, int kernels, bool runs) {
    return runs ? roofline_s(c, flops_per_s, hbm, kernels) : 0.0;
  };
  const bool has_pre = !b.prefill.empty(), has_dec = !b.decode_contexts.empty();
  const double pre_s = time(pre, rates_.attention_flops(), attention_kernels, has_pre) +
                       time(pre_ix, ix_flops, indexer_kernels, has_pre && indexed);
  const double dec_s = time(dec, rates_.attention_flops(), attention_kernels, has_dec) +
                       time(dec_ix, ix_flops, indexer_kernels, has_dec && indexed);
  OpCost& att = st.ops[static_cast<int>(Op::attention)];
  att.flops_prefill = pre.flops_prefill + pre_ix.flops_prefill;
  att.flops_decode = dec.flops_decode + dec_ix.flops_decode;
  att.bytes = pre.bytes + dec.bytes + pre_ix.bytes + dec_ix.bytes;
  att.time_s = pre_s + dec_s;
  att.kernels = (has_pre ? attention_kernels + (indexed ? indexer_kernels : 0) : 0) +
                (has_dec ? attention_kernels + (indexed ? indexer_kernels : 0) : 0);
  att.prefill_share = att.time_s > 0.0 ? pre_s / att.time_s : 0.0;
}

// Gated DeltaNet as the engines run it (flash-linear-attention's kernels in vLLM and SGLang). Decode: one fused
// recurrent step per token, S <- a S (I - b k k^T) + b v k^T and o = S^T q, about 7 x dk x dv FLOPs per value head
// (decay, S^T k, the rank-1 update, S^T q), reading and writing each sequence's state once per step. Prefill: the
// chunked form in chunks of 64 tokens (chunk_gated_delta_rule): per token and head the intra-chunk products,
// 4 x 64 x (dk + dv), and the state's, 6 x dk x dv; each chunk's boundary state is written in 16-bit and read
// back. Both run on the attention rate (Triton kernels, not the GEMM libraries).
// Mamba-2 (mamba_ssm's kernels in vLLM, SGLang and TensorRT-LLM): decode S <- exp(dt A) S + dt x B^T and y = S C,
// about 5 x dk x dv FLOPs per head; prefill the chunked SSD form (chunks of 256 in mamba_chunk_scan_combined): per
// token and head the intra-chunk products C B^T and their mix of x, 2 x chunk x (dk + dv), and the states' B^T x and
// C S, 4 x dk x dv; five kernels (cumsum, chunk state, state passing, BMM, chunk scan) and the conv.
void StepTimeModel::cost_linear_attention(const BatchShape& b, const Layers& l, StepTime& st) const {
  if (!model_.linear_attention || l.linear == 0.0) return;
  const auto& la = *model_.linear_attention;
  const bool mamba2 = la.kind == specs::LinearAttentionKind::mamba2;
  const double chunk_tokens = mamba2 ? 256.0 : 64.0;
  const double state_flops = mamba2 ? 4.0 : 6.0;  // per token, head and dk x dv in a prefill chunk
  const double intra_flops = mamba2 ? 2.0 : 4.0;  // per token, head, chunk token and dk + dv
  const double step_flops = mamba2 ? 5.0 : 7.0;   // per decoded token, head and dk x dv
  // Gated DeltaNet: conv, l2 norms, cumsum, k k^T, solve, w/u, states, output; Mamba-2: conv and its five.
  const int kPrefillKernelsPerLayer = mamba2 ? 6 : 8;
  constexpr int kDecodeKernelsPerLayer = 2;  // conv update, fused recurrent step
  const int tp = deployment_.replica.tp;
  const double heads = std::ceil(static_cast<double>(la.num_value_heads) / tp);
  const double dk = la.key_head_dim, dv = la.value_head_dim;
  const double state = heads * dk * dv * specs::bytes_per_element(la.state);
  const double channels = std::ceil(la.conv_channels() / tp);
  const double conv_state =
      channels * std::max(0, la.conv_kernel - 1) * specs::bytes_per_element(model_.precision.activations);
  const double conv_flops_per_token = 2.0 * channels * la.conv_kernel;

  const double boundary = heads * dk * dv * 2.0;  // one 16-bit state per prefill chunk

  OpCost pre, dec;
  // A decoding sequence verifies its drafts token by token through the recurrence.
  dec.flops_decode = l.linear * b.decode_tokens() * (heads * step_flops * dk * dv + conv_flops_per_token);
  dec.bytes = l.linear * b.num_decode() * 2.0 * (state + conv_state);
  for (const PrefillChunk& ch : b.prefill) {
    const double chunks = std::ceil(ch.tokens / chunk_tokens);
    pre.flops_prefill +=
        l.linear * ch.tokens *
        (heads * (state_flops * dk * dv + intra_flops * chunk_tokens * (dk + dv)) + conv_flops_per_token);
    pre.bytes += l.linear * (2.0 * chunks * boundary + 2.0 * (state + conv_state));
  }
  const double hbm = rates_.hbm_bytes_per_s();
  const bool has_pre = !b.prefill.empty(), has_dec = !b.decode_contexts.empty();
  const int layers = static_cast<int>(l.linear);
  const double pre_s = has_pre ? roofline_s(pre, rates_.attention_flops(), hbm, kPrefillKernelsPerLayer * layers) : 0.0;
  const double dec_s = has_dec ? roofline_s(dec, rates_.attention_flops(), hbm, kDecodeKernelsPerLayer * layers) : 0.0;
  OpCost& op = st.ops[static_cast<int>(Op::linear_attention)];
  op.flops_prefill = pre.flops_prefill;
  op.flops_decode = dec.flops_decode;
  op.bytes = pre.bytes + dec.bytes;
  op.time_s = pre_s + dec_s;
  op.kernels = (has_pre ? kPrefillKernelsPerLayer * layers : 0) + (has_dec ? kDecodeKernelsPerLayer * layers : 0);
  op.prefill_share = op.time_s > 0.0 ? pre_s / op.time_s : 0.0;
}

void StepTimeModel::cost_ffn(const BatchShape& b, const Layers& l, const MoeTokens& moe_tokens, StepTime& st) const {
  const int tp = deployment_.replica.tp;
  const double pre = b.prefill_tokens(), dec = b.decode_tokens();
  const double h = model_.hidden_size;
  const double abytes = specs::bytes_per_element(model_.precision.activations);

  if (l.dense > 0) {
    cost_token_gemm(st.ops[static_cast<int>(Op::dense_ffn)], params_.dense_ffn_per_layer / tp * l.dense,
                    model_.precision.weights, 2.0 * h * abytes * l.dense, pre, dec, 3 * static_cast<int>(l.dense));
  }
  if (!model_.moe || l.moe == 0) return;
  const double moe_layers = l.moe;
  const int moe_kernels = static_cast<int>(moe_layers);

  const auto& moe = *model_.moe;
  const int ep = deployment_.replica.ep;
  const int moe_tp = deployment_.replica.moe_tp();

  OpCost& gate = st.ops[static_cast<int>(Op::moe_gate)];
  gate.flops_prefill = 2.0 * pre * params_.router_per_moe_layer * moe_layers;
  gate.flops_decode = 2.0 * dec * params_.router_per_moe_layer * moe_layers;
  gate.bytes = params_.router_per_moe_layer * 2.0 * moe_layers;  // router weights stay 16-bit
  gate.time_s =
      roofline_s(gate, rates_.matmul_flops(specs::Precision::bf16), rates_.hbm_bytes_per_s(), 2 * moe_kernels);
  gate.kernels = 2 * moe_kernels;
  gate.prefill_share = share(pre, dec);

  // The experts see every attention-DP rank's tokens (one rank's without attention DP).
  const double tokens = moe_tokens.prefill + moe_tokens.decode;
  // With T tokens each picking top_k of E experts uniformly, E (1 - (1 - k/E)^T) distinct experts are touched
  // (REFERENCE.md section 8), E / ep of them on each GPU, each expert sliced moe_tp ways. With uneven traffic
  // every rank waits for the busiest: its copies are the ones read and its share of the assignments
  // (load_factor / ep) the one computed.
  // A measured rank (use_measured_expert_rows): the experts it read and its share of the assignments.
  const double touched =
      measured_rows_ ? measured_rows_->experts_used() : copies_touched_on_busiest(experts_, moe.top_k, tokens);
  const double per_rank =
      measured_rows_ ? (tokens > 0.0 ? measured_rows_->rows() / (tokens * moe.top_k) : 0.0) : experts_.load_factor / ep;
  const double assignments_per_gpu = tokens * moe.top_k * per_rank;
  OpCost& ex = st.ops[static_cast<int>(Op::moe_experts)];
  const double per_assignment_flops = 2.0 * params_.routed_expert / moe_tp;
  ex.flops_prefill = per_assignment_flops * moe_tokens.prefill * moe.top_k * per_rank * moe_layers;
  ex.flops_decode = per_assignment_flops * moe_tokens.decode * moe.top_k * per_rank * moe_layers;
  // Each assignment's activations in and out, at the latent width for a latent MoE.
  const double expert_in = moe.expert_input_width(model_.hidden_size);
  ex.bytes = (touched * params_.routed_expert / moe_tp * specs::bytes_per_element(model_.precision.experts) +
              assignments_per_gpu * 2.0 * expert_in * abytes) *
             moe_layers;
  // The GEMMs compute padded row tiles per expert (expert_placement.hpp): the FLOPs above are the useful ones,
  // the rate is cut by the padding.
  const int experts_total = static_cast<int>(experts_.hottest_copies.size()) * ep;
  const int tile = grouped_gemm_row_tile(tokens, moe.top_k, experts_total);
  const double padding =
      assignments_per_gpu > 0.0
          ? std::max(1.0, (measured_rows_ ? measured_rows_->padded_rows(tile)
                                          : padded_rows_on_busiest(experts_, moe.top_k, tokens, tile)) /
                              assignments_per_gpu)
          : 1.0;
  // Grouped expert kernels multiply below a dense GEMM's rate (Profile::expert_kernel_efficiency) and stream their
  // weights below a dense GEMM's bandwidth (Profile::expert_memory_efficiency).
  const double rate = rates_.expert_kernel_efficiency(model_.precision.experts) *
                      rates_.gemm_flops(model_.precision.experts, expert_inputs_);
  ex.time_s = roofline_s(ex, rate / padding, rates_.expert_hbm_bytes_per_s(), 4 * moe_kernels);
  ex.kernels = 4 * moe_kernels;
  ex.prefill_share = share(moe_tokens.prefill, moe_tokens.decode);

  // The shared experts and a latent MoE's down and up projections: 16-bit GEMMs every token takes, split over TP.
  const double every_token = params_.shared_experts_per_moe_layer + params_.latent_projections_per_moe_layer;
  if (every_token > 0.0) {
    const int kernels = (moe.num_shared_experts > 0 ? 3 : 0) + (moe.latent_width > 0 ? 2 : 0);
    const double io = (moe.num_shared_experts > 0 ? 2.0 * h : 0.0) + (moe.latent_width > 0 ? 2.0 * h : 0.0);
    cost_token_gemm(st.ops[static_cast<int>(Op::shared_expert)], every_token / tp * moe_layers,
                    model_.precision.weights, io * abytes * moe_layers, pre, dec, kernels * moe_kernels);
  }
}

double StepTimeModel::hidden_allreduces_per_pass(const Layers& l) const {
  const auto& layout = deployment_.replica;
  if (layout.tp == 1) return 0.0;
  // One after each attention (of either kind) and one after each FFN or MoE: two per layer that has both. With
  // attention DP a MoE layer's output comes back by the EP combine instead, leaving the attention's (and a dense
  // FFN's) inside the rank's tp GPUs.
  return layout.dp > 1 ? l.mixers() + l.dense : l.mixers() + l.ffns();
}

// A QK norm across all heads adds one all-reduce per softmax-attention layer inside the tp GPUs, dp or not: each
// token's sums of squares of its q and k slices (vLLM's MiniMaxText01RMSNormTP).
double StepTimeModel::qk_norm_allreduces_per_pass(const Layers& l) const {
  const auto& a = model_.attention;
  if (deployment_.replica.tp == 1 || a.type != specs::AttentionType::gqa || !a.qk_norm_across_heads) return 0.0;
  return l.softmax();
}

void StepTimeModel::cost_allreduce(const BatchShape& b, const Layers& l, StepTime& st) const {
  const auto& layout = deployment_.replica;
  if (layout.tp == 1) return;
  const double pre = b.prefill_tokens(), dec = b.decode_tokens();
  const double message = (pre + dec) * model_.hidden_size * specs::bytes_per_element(model_.precision.activations);
  // Ring all-reduces: each moves 2 (n - 1) / n of its buffer.
  const double calls_per_pass = hidden_allreduces_per_pass(l);
  const double norm_calls = qk_norm_allreduces_per_pass(l);
  const double norm_message = (pre + dec) * kQkNormBytesPerToken;
  OpCost& ar = st.ops[static_cast<int>(Op::tp_allreduce)];
  const int calls = static_cast<int>(calls_per_pass + norm_calls);
  const double buffer = calls_per_pass * message + norm_calls * norm_message;
  // A tp group over whole scale-up domains all-reduces in two stages, as NCCL's hierarchical algorithms do: inside
  // each domain of g GPUs over NVLink, then between the n domains over the NICs, each GPU carrying its 1/g of the
  // buffer on its own NIC (one rail per GPU).
  const int g = std::min(layout.tp, deployment_.hardware.scale_up_domain_gpus);
  const int n = layout.tp / g;
  const double intra = buffer * 2.0 * (g - 1) / g, inter = buffer / g * 2.0 * (n - 1) / n;
  ar.bytes = intra + inter;
  ar.time_s = collective_s(intra, rates_.nvlink_bus_bytes_per_s(g), g > 1 ? calls : 0) +
              collective_s(inter, rates_.nic_bytes_per_s(), n > 1 ? calls : 0);
  ar.kernels = (g > 1 ? calls : 0) + (n > 1 ? calls : 0);
  ar.prefill_share = share(pre, dec);
}

// Attention DP with EP (DeepEP-style dispatch and combine): each MoE layer sends every token of the rank to
// the EP ranks that hold its top_k experts (once per destination rank) and gathers the weighted outputs back.
// With E experts spread evenly over ep ranks a token reaches (ep - 1)(1 - (1 - 1/ep)^top_k) other ranks on
// average. Dispatch moves FP8 activations (with one 4-byte scale per 128 values) when the weights are 8-bit or
// narrower, as DeepSeek's engines do; combine moves activations in their precision. A GPU waits for the larger
// of what it sends and what the busiest rank receives (load_factor / ep of all copies).
void StepTimeModel::cost_alltoall(const BatchShape& b, const Layers& l, const MoeTokens& moe_tokens,
                                  StepTime& st) const {
  const auto& layout = deployment_.replica;
  if (layout.dp == 1 || layout.ep == 1 || !model_.moe || l.moe == 0) return;
  const double ep = layout.ep;
  const double k = model_.moe->top_k;
  // What a token carries to the experts: the hidden state, or a latent MoE's latent.
  const double h = model_.moe->expert_input_width(model_.hidden_size);
  const double abytes = specs::bytes_per_element(model_.precision.activations);
  const bool fp8_dispatch = specs::bytes_per_element(model_.precision.weights) <= 1.0;
  const double per_token = h * ((fp8_dispatch ? 1.0 + 4.0 / 128.0 : abytes) + abytes);
  const double remote_ranks = (ep - 1.0) * (1.0 - std::pow(1.0 - 1.0 / ep, k));
  const double sent = (b.prefill_tokens() + b.decode_tokens()) / layout.tp * remote_ranks * per_token;
  const double all_copies = (moe_tokens.prefill + moe_tokens.decode) * remote_ranks;
  const double received = all_copies * experts_.load_factor / layout.stage_gpus() * per_token;
  OpCost& a2a = st.ops[static_cast<int>(Op::ep_alltoall)];
  a2a.bytes = std::max(sent, received) * l.moe;
  // Inside one scale-up domain the exchange runs over NVLink, otherwise over the NICs.
  const bool nvlink = layout.stage_gpus() <= deployment_.hardware.scale_up_domain_gpus;
  a2a.time_s =
      collective_s(a2a.bytes, nvlink ? rates_.nvlink_bus_bytes_per_s(layout.stage_gpus()) : rates_.nic_bytes_per_s(),
                   2 * static_cast<int>(l.moe));
  a2a.kernels = 2 * static_cast<int>(l.moe);
  a2a.prefill_share = share(b.prefill_tokens(), b.decode_tokens());
}

void StepTimeModel::cost_pipeline(const BatchShape& b, StepTime& st) const {
  const auto& layout = deployment_.replica;
  if (layout.pp == 1) return;
  const double pre = b.prefill_tokens(), dec = b.decode_tokens();
  const double message = (pre + dec) * model_.hidden_size * specs::bytes_per_element(model_.precision.activations);
  // Stage boundaries inside one scale-up domain use NVLink, otherwise the NIC.
  const bool nvlink = layout.gpus() <= deployment_.hardware.scale_up_domain_gpus;
  // A stage boundary is a copy between two GPUs.
  const double bw = nvlink ? rates_.nvlink_bus_bytes_per_s(2) : rates_.nic_bytes_per_s();
  OpCost& send = st.ops[static_cast<int>(Op::pp_send)];
  send.bytes = (layout.pp - 1) * message / layout.tp;
  send.time_s = collective_s(send.bytes, bw, layout.pp - 1);
  send.kernels = layout.pp - 1;
  send.prefill_share = share(pre, dec);
}

}  // namespace fleetcast::simulator
