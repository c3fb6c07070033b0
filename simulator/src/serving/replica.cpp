// One replica's engine loop: take new requests from the mailbox, form the next batch, spend the predicted
// step time, then hand out tokens and report finished requests (with its KV figures) to the router.
#include <cmath>

#include "context.hpp"
#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/memory_model.hpp"

namespace fleetcast::simulator::serving {
namespace {

// What the replica tells the router about its load, and when: every completion carries the figures, and with
// least_kv_load a load report follows a step whose committed KV moved by more than kLoadReportShare of the
// capacity since the router last heard (router_policy.hpp).
class LoadReporter {
public:
  LoadReporter(int replica, bool reports) : replica_(replica), reports_(reports) {}

  void accepted() { ++accepted_; }
  void completion(const Batcher& b, Request* r) { tell(Message::Kind::completion, r, figures(b)); }
  void after_step(const Batcher& b) {
    if (!reports_) return;
    const KvLoadReport load = figures(b);
    if (std::abs(load.committed_bytes - last_bytes_) <= kLoadReportShare * load.capacity_bytes) return;
    tell(Message::Kind::load_report, nullptr, load);
  }

private:
  KvLoadReport figures(const Batcher& b) const {
    return {b.kv_used_bytes() + b.kv_waiting_bytes(), b.kv_capacity_bytes(), accepted_};
  }
  void tell(Message::Kind kind, Request* r, const KvLoadReport& load) {
    last_bytes_ = load.committed_bytes;
    send(router_mailbox(), new Message{kind, r, replica_, load});
  }

  int replica_;
  bool reports_;
  std::int64_t accepted_ = 0;
  double last_bytes_ = 0.0;  // the committed KV the router last heard of
};

void accept(Batcher& batcher, Message* msg, ReplicaGauge& gauge, LoadReporter& reporter) {
  std::unique_ptr<Message> owned(msg);
  Request* r = owned->request;
  reporter.accepted();
  if (!batcher.add(r)) {
    // Longer than this replica can ever hold: it fails now, and the report counts it.
    r->finish_s = sg4::Engine::get_clock();
    reporter.completion(batcher, r);
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
  LoadReporter reporter(replica, scenario.deployment.router == specs::RouterPolicy::least_kv_load);
  ReplicaGauge& gauge = ctx->gauges[static_cast<std::size_t>(replica)];
  gauge.kv_capacity_bytes = ctx->kv_capacity_bytes;
  sg4::Mailbox* inbox = replica_mailbox(replica);
  const StepTimeModel& model = *ctx->step_model;

  for (;;) {
    if (!batcher.has_work()) accept(batcher, inbox->get<Message>(), gauge, reporter);
    while (inbox->listen()) accept(batcher, inbox->get<Message>(), gauge, reporter);
    if (!batcher.has_work()) continue;

    const double start = sg4::Engine::get_clock();
    const BatchShape& batch = batcher.schedule(start);
    gauge.waiting = static_cast<int>(batcher.waiting());
    gauge.running = static_cast<int>(batcher.running());
    gauge.kv_used_bytes = batcher.kv_used_bytes();
    gauge.preemptions = batcher.preemptions();
    // KV swapped out or in by this step crosses the host link before the step can end (preemption by swap).
    const double swap_s =
        batcher.step_swap_bytes() > 0.0 ? batcher.step_swap_bytes() / ctx->host_link_bytes_per_s : 0.0;
    if (batch.empty()) {
      // Nothing fits now (KV full of requests that cannot grow): wait for news rather than spin.
      if (swap_s > 0.0) sg4::this_actor::sleep_for(swap_s);
      accept(batcher, inbox->get<Message>(), gauge, reporter);
      continue;
    }
    const StepTime st = model.predict(batch);
    sg4::this_actor::sleep_for(st.total_s + swap_s);

    const double end = sg4::Engine::get_clock();
    const StepOutcome out = batcher.complete(end);
    const double prefill_share = st.total_s > 0.0 ? st.prefill_s / st.total_s : 0.0;
    ctx->recorder->record_step(start, end, ctx->gpus_per_replica, prefill_share, out);
    for (Request* r : out.finished) reporter.completion(batcher, r);
    reporter.after_step(batcher);
    gauge.running = static_cast<int>(batcher.running());
    gauge.kv_used_bytes = batcher.kv_used_bytes();
  }
}

void sampler_actor(Context* ctx, double interval_s) {
  for (;;) {
    Sample s{sg4::Engine::get_clock(), ctx->in_system, 0, 0, 0.0, {}};
    double used = 0.0, capacity = 0.0;
    s.replica_kv_used_share.reserve(ctx->gauges.size());
    for (const ReplicaGauge& g : ctx->gauges) {
      s.waiting += g.waiting;
      s.running += g.running;
      used += g.kv_used_bytes;
      capacity += g.kv_capacity_bytes;
      s.replica_kv_used_share.push_back(g.kv_capacity_bytes > 0.0 ? g.kv_used_bytes / g.kv_capacity_bytes : 0.0);
    }
    s.kv_used_share = capacity > 0.0 ? used / capacity : 0.0;
    ctx->recorder->record_sample(s);
    sg4::this_actor::sleep_for(interval_s);
  }
}

}  // namespace fleetcast::simulator::serving
