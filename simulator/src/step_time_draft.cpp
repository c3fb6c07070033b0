// The MTP draft passes of StepTimeModel: what proposing the next step's drafts costs.
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/precision.hpp"

namespace fleetcast::simulator {

// DeepSeek's MTP module drafts one token per pass: it concatenates the last hidden state with the embedding of
// the token before the draft, projects 2 x hidden back to hidden (eh_proj), runs one transformer layer (its own
// attention over its own KV and its own experts) and samples with the shared LM head. n drafts take n passes,
// one after another, each over one token of every decoding sequence. Engines reuse one module for every pass
// when the model has fewer MTP layers than drafts, so every pass costs one module.
void StepTimeModel::cost_draft(const BatchShape& b, const MoeTokens& draft_moe, StepTime& st) const {
  if (b.draft_tokens <= 0 || b.decode_contexts.empty()) return;
  OpCost& draft = st.ops[static_cast<int>(Op::mtp_draft)];
  const double abytes = specs::bytes_per_element(model_.precision.activations);
  const double h = model_.hidden_size;

  BatchShape pass;  // one query token per decoding sequence, no drafts of its own
  pass.decode_contexts = b.decode_contexts;
  for (int k = 0; k < b.draft_tokens; ++k) {
    StepTime one;
    cost_layers(pass, mtp_layer_, draft_moe, one);
    // eh_proj is a plain (replicated, 16-bit) linear layer in vLLM and SGLang: not split over TP ranks. Its
    // input is the hidden state and the embedding row, its output one hidden state.
    OpCost eh;
    cost_token_gemm(eh, 2.0 * h * h, specs::Precision::bf16, 3.0 * h * abytes, 0.0, pass.num_decode(), 1);
    cost_head(pass, one);
    for (const OpCost& c : one.ops) {
      draft.flops_decode += c.flops();
      draft.bytes += c.bytes;
      draft.time_s += c.time_s;
      draft.kernels += c.kernels;
    }
    draft.flops_decode += eh.flops();
    draft.bytes += eh.bytes;
    draft.time_s += eh.time_s;
    draft.kernels += eh.kernels;
    // The next pass drafts one position further: each sequence's MTP KV holds one more token.
    for (int& c : pass.decode_contexts) ++c;
  }
  draft.prefill_share = 0.0;  // only decoding sequences draft
}

}  // namespace fleetcast::simulator
