// One replica's engine loop: take new requests from the mailbox, form the next batch, spend the predicted
// step time, then hand out tokens and report finished requests to the router.
#include "context.hpp"
#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/memory_model.hpp"

namespace fleetcast::simulator::serving {
namespace {

void accept(Batcher& batcher, Message* msg, ReplicaGauge& gauge) {
  std::unique_ptr<Message> owned(msg);
  Request* r = owned->request;
  if (!batcher.add(r)) {
    // Longer than this replica can ever hold: it fails now, and the report counts it.
    r->finish_s = sg4::Engine::get_clock();
    send(router_mailbox(), Message::Kind::completion, r);
  }
  gauge.waiting = static_cast<int>(batcher.waiting());
}

}  // namespace

void replica_actor(Context* ctx, int replica) {
  const auto& scenario = *ctx->scenario;
  KvBudget kv;
  kv.capacity_bytes = ctx->kv_capacity_bytes;
  kv.bytes_for_tokens = [model = &scenario.model, dep = &scenario.deployment](double tokens) {
    return kv_bytes_per_gpu(*model, *dep, tokens);
  };
  std::optional<DraftAcceptance> drafts;
  if (scenario.deployment.speculative) {
    drafts.emplace(*scenario.deployment.speculative, scenario.seed, kDraftAcceptanceStreamBase + replica);
  }
  Batcher batcher(scenario.deployment.scheduler, std::move(kv), std::move(drafts));
  ReplicaGauge& gauge = ctx->gauges[static_cast<std::size_t>(replica)];
  gauge.kv_capacity_bytes = ctx->kv_capacity_bytes;
  sg4::Mailbox* inbox = replica_mailbox(replica);
  const StepTimeModel& model = *ctx->step_model;

  for (;;) {
    if (!batcher.has_work()) accept(batcher, inbox->get<Message>(), gauge);
    while (inbox->listen()) accept(batcher, inbox->get<Message>(), gauge);
    if (!batcher.has_work()) continue;

    const double start = sg4::Engine::get_clock();
    const BatchShape& batch = batcher.schedule(start);
    gauge.waiting = static_cast<int>(batcher.waiting());
    gauge.running = static_cast<int>(batcher.running());
    gauge.kv_used_bytes = batcher.kv_used_bytes();
    gauge.preemptions = batcher.preemptions();
    if (batch.empty()) {
      // Nothing fits now (KV full of requests that cannot grow): wait for news rather than spin.
      accept(batcher, inbox->get<Message>(), gauge);
      continue;
    }
    const StepTime st = model.predict(batch);
    sg4::this_actor::sleep_for(st.total_s);

    const double end = sg4::Engine::get_clock();
    const StepOutcome out = batcher.complete(end);
    const double prefill_share = st.total_s > 0.0 ? st.prefill_s / st.total_s : 0.0;
    ctx->recorder->record_step(start, end, ctx->gpus_per_replica, prefill_share, out.prefill_tokens,
                               out.first_token_input_tokens, out.output_tokens, out.token_gaps_s);
    ctx->recorder->record_decodes(end, out.decode_sequences, out.decode_output_tokens);
    for (Request* r : out.finished) send(router_mailbox(), Message::Kind::completion, r);
    gauge.running = static_cast<int>(batcher.running());
    gauge.kv_used_bytes = batcher.kv_used_bytes();
  }
}

void sampler_actor(Context* ctx, double interval_s) {
  for (;;) {
    Sample s{sg4::Engine::get_clock(), ctx->in_system, 0, 0, 0.0};
    double used = 0.0, capacity = 0.0;
    for (const ReplicaGauge& g : ctx->gauges) {
      s.waiting += g.waiting;
      s.running += g.running;
      used += g.kv_used_bytes;
      capacity += g.kv_capacity_bytes;
    }
    s.kv_used_share = capacity > 0.0 ? used / capacity : 0.0;
    ctx->recorder->record_sample(s);
    sg4::this_actor::sleep_for(interval_s);
  }
}

}  // namespace fleetcast::simulator::serving
