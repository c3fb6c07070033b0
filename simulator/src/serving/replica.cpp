// One replica's engine loop: take new requests from the mailbox, form the next batch, spend the predicted
// step time, then hand out tokens and report finished requests (with its KV figures) to the router.
// With attention data parallelism the replica keeps one batcher (batch and KV cache) per DP rank and steps
// them together, as SGLang's DP attention and DeepInfer do (with TensorRT-LLM's balance of contexts across the
// ranks where the scheduler asks for it, attention_dp_balance.hpp).
// With prefill/decode disaggregation a prefill replica runs each request as prompt-only (its batcher sees one
// output token: the prefill samples the first), then sends the prompt's KV to the request's decode replica as
// a SimGrid communication; a decode replica admits the request with that KV present and produces the rest.
#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_map>

#include "context.hpp"
#include "fleetcast/simulator/batcher.hpp"
#include "fleetcast/simulator/dp_router.hpp"
#include "fleetcast/simulator/dp_step_former.hpp"
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
  void completion(const std::vector<Batcher>& b, Request* r) { tell(Message::Kind::completion, r, figures(b)); }
  void prefilled(const std::vector<Batcher>& b, Request* r) { tell(Message::Kind::prefilled, r, figures(b)); }
  void after_step(const std::vector<Batcher>& b) {
    if (!reports_) return;
    const KvLoadReport load = figures(b);
    if (std::abs(load.committed_bytes - last_bytes_) <= kLoadReportShare * load.capacity_bytes) return;
    tell(Message::Kind::load_report, nullptr, load);
  }

 private:
  // The replica's figures: its DP ranks' summed (one rank without attention DP).
  KvLoadReport figures(const std::vector<Batcher>& ranks) const {
    KvLoadReport load{0.0, 0.0, accepted_};
    for (const Batcher& b : ranks) {
      load.committed_bytes += b.kv_used_bytes() + b.kv_waiting_bytes();
      load.capacity_bytes += b.kv_capacity_bytes();
    }
    return load;
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

// The replica's DP ranks and the gauges the sampler reads. Arrivals go to the rank the engine's front end picks
// (dp_router.hpp).
struct Ranks {
  std::vector<Batcher> batchers;
  DpRouter router;

  bool has_work() const {
    return std::any_of(batchers.begin(), batchers.end(), [](const Batcher& b) { return b.has_work(); });
  }
  void update(ReplicaGauge& g) const {
    g = ReplicaGauge{0, 0, 0.0, g.kv_capacity_bytes, 0, 0};
    for (const Batcher& b : batchers) {
      g.waiting += static_cast<int>(b.waiting());
      g.running += static_cast<int>(b.running());
      g.kv_used_bytes += b.kv_used_bytes();
      g.preemptions += b.preemptions();
      if (const PrefixCache* cache = b.prefix_cache()) g.prefix_evicted_blocks += cache->evicted_blocks();
    }
  }
};

// What a replica of a disaggregated pool keeps besides its batchers: a prefill replica the real output
// lengths of the prompt-only requests it runs; a decode replica the prefilled requests (and their DP rank)
// that found no room yet, admitted first come first served as steps free sequences and KV.
struct Handoff {
  Role role = Role::both;
  std::unordered_map<Request*, int> output_tokens;
  std::deque<std::pair<std::size_t, Request*>> pending;

  void admit_pending(Ranks& ranks, LoadReporter& reporter) {
    while (!pending.empty()) {
      auto [k, r] = pending.front();
      const Batcher::Prefilled result = ranks.batchers[k].add_prefilled(r);
      if (result == Batcher::Prefilled::no_room) return;
      pending.pop_front();
      if (result == Batcher::Prefilled::never_fits) {
        r->finish_s = sg4::Engine::get_clock();
        reporter.completion(ranks.batchers, r);
      }
    }
  }
};

void accept(Ranks& ranks, Message* msg, ReplicaGauge& gauge, LoadReporter& reporter, Handoff& handoff) {
  std::unique_ptr<Message> owned(msg);
  Request* r = owned->request;
  reporter.accepted();
  const double now = sg4::Engine::get_clock();
  const std::size_t k = ranks.router.route(ranks.batchers, now);
  Batcher& rank = ranks.batchers[k];
  if (owned->kind == Message::Kind::kv_transfer) {
    // The first token reaches the client with the KV: vLLM's P/D proxy streams every token from the decode
    // instance (v0.11 examples/online_serving/disaggregated_serving/disagg_proxy_demo.py), so TTFT ends here.
    r->kv_arrived_s = r->first_token_s = r->last_token_s = now;
    if (r->generated >= r->output_tokens) {
      r->finish_s = now;
      reporter.completion(ranks.batchers, r);
    } else {
      handoff.pending.emplace_back(k, r);
      handoff.admit_pending(ranks, reporter);
    }
    ranks.update(gauge);
    return;
  }
  if (handoff.role == Role::prefill) {
    handoff.output_tokens[r] = r->output_tokens;
    r->output_tokens = 1;
  }
  if (!rank.add(r)) {
    // Longer than this replica can ever hold: it fails now, and the report counts it.
    if (handoff.role == Role::prefill) {
      r->output_tokens = handoff.output_tokens[r];
      handoff.output_tokens.erase(r);
    }
    r->finish_s = now;
    reporter.completion(ranks.batchers, r);
  }
  ranks.update(gauge);
}

// The prefill is done and its KV freed (Batcher::complete released the blocks): the KV goes to the decode
// replica as one message of the per-GPU bytes from this replica's first GPU, over the platform's route
// (NVLink inside a scale-up domain, else NIC and fabric), sharing links with every other transfer.
void send_kv(Context* ctx, const PoolContext& pool, int replica, Request* r, Handoff& handoff) {
  r->output_tokens = handoff.output_tokens[r];
  handoff.output_tokens.erase(r);
  r->finish_s = -1.0;
  r->kv_transfer_bytes = kv_bytes_per_gpu(ctx->scenario->model, *pool.deployment, r->input_tokens);
  r->kv_sent_s = sg4::Engine::get_clock();
  sg4::Actor::create("kv." + std::to_string(r->id), ctx->replica_hosts[static_cast<std::size_t>(r->decode_replica)],
                     kv_receiver_actor, r->id, r->decode_replica);
  kv_mailbox(r->id)->put_init(new Message{Message::Kind::kv_transfer, r, replica, {}}, r->kv_transfer_bytes)->detach();
}

}  // namespace

void kv_receiver_actor(std::int64_t request, int decode_replica) {
  send(replica_mailbox(decode_replica), kv_mailbox(request)->get<Message>());
}

void replica_actor(Context* ctx, int replica) {
  const auto& scenario = *ctx->scenario;
  const PoolContext& pool = ctx->pool_of(replica);
  const specs::DeploymentSpec& deployment = *pool.deployment;
  Handoff handoff{pool.role, {}, {}};
  KvBudget kv;
  kv.capacity_bytes = pool.kv_capacity_bytes;
  kv.bytes_for_tokens = [model = &scenario.model, dep = &deployment](double tokens) {
    return kv_bytes_per_gpu(*model, *dep, tokens);
  };
  const int dp = deployment.replica.dp;
  Ranks ranks{{},
              DpRouter(deployment.scheduler, dp, scenario.model.moe.has_value(), scenario.seed,
                       kDpRouterStreamBase + static_cast<std::uint64_t>(replica))};
  ranks.batchers.reserve(static_cast<std::size_t>(dp));
  for (int k = 0; k < dp; ++k) {
    std::optional<DraftAcceptance> rank_drafts;
    // One acceptance stream per DP rank: the replica's own stream for rank 0, so dp 1 draws as before.
    if (scenario.deployment.speculative) {
      rank_drafts.emplace(*scenario.deployment.speculative, scenario.seed,
                          kDraftAcceptanceStreamBase + static_cast<std::uint64_t>(replica) +
                              static_cast<std::uint64_t>(k) * kDraftRankStride);
    }
    ranks.batchers.emplace_back(deployment.scheduler, kv, std::move(rank_drafts),
                                scenario.workload.prefix_block_tokens);
  }
  LoadReporter reporter(replica, scenario.deployment.router == specs::RouterPolicy::least_kv_load);
  ReplicaGauge& gauge = ctx->gauges[static_cast<std::size_t>(replica)];
  gauge.kv_capacity_bytes = pool.kv_capacity_bytes * dp;
  sg4::Mailbox* inbox = replica_mailbox(replica);
  const StepTimeModel& model = *pool.step_model;
  std::vector<BatchShape> batches(static_cast<std::size_t>(dp));
  DpStepFormer step_former(deployment.scheduler, dp);
  const int gpus_per_rank = deployment.replica.gpus() / dp;

  for (;;) {
    if (!ranks.has_work()) accept(ranks, inbox->get<Message>(), gauge, reporter, handoff);
    while (inbox->listen()) accept(ranks, inbox->get<Message>(), gauge, reporter, handoff);
    if (!ranks.has_work()) continue;

    const double start = sg4::Engine::get_clock();
    bool empty = true;
    double swap_bytes = 0.0;  // the rank that moves the most: ranks swap over their own GPUs' host links at once
    ranks.router.report(ranks.batchers, start);
    step_former.form(ranks.batchers, batches, start);
    for (const Batcher& b : ranks.batchers) swap_bytes = std::max(swap_bytes, b.step_swap_bytes());
    for (const BatchShape& batch : batches) empty = empty && batch.empty();
    ranks.update(gauge);
    // KV swapped out or in by this step crosses the host link before the step can end (preemption by swap).
    const double swap_s = swap_bytes > 0.0 ? swap_bytes / ctx->host_link_bytes_per_s : 0.0;
    if (empty) {
      // Nothing fits now (KV full of requests that cannot grow): wait for news rather than spin.
      if (swap_s > 0.0) sg4::this_actor::sleep_for(swap_s);
      accept(ranks, inbox->get<Message>(), gauge, reporter, handoff);
      continue;
    }
    const StepTime st = model.predict_ranks(batches);
    sg4::this_actor::sleep_for(st.total_s + swap_s);

    const double end = sg4::Engine::get_clock();
    const double prefill_share = st.total_s > 0.0 ? st.prefill_s / st.total_s : 0.0;
    StepRecord log{replica, start, end};
    for (std::size_t k = 0; k < ranks.batchers.size(); ++k) {
      Batcher& b = ranks.batchers[k];
      const StepOutcome out = b.complete(end);
      // Each rank's GPUs were busy for the whole step (the ranks wait for one another).
      ctx->recorder->record_step(start, end, gpus_per_rank, prefill_share, out, pool.index);
      log.decode_sequences += out.decode_sequences;
      log.prefill_chunks += static_cast<int>(batches[k].prefill.size());
      log.prefill_tokens += out.prefill_tokens;
      log.decode_tokens += out.decode_tokens;
      log.output_tokens += out.output_tokens;
      for (Request* r : out.finished) {
        if (pool.role == Role::prefill) {
          send_kv(ctx, pool, replica, r, handoff);
          reporter.prefilled(ranks.batchers, r);
        } else {
          reporter.completion(ranks.batchers, r);
        }
      }
    }
    ranks.router.report(ranks.batchers, end);
    if (pool.role == Role::decode) handoff.admit_pending(ranks, reporter);
    reporter.after_step(ranks.batchers);
    ranks.update(gauge);
    if (ctx->recorder->keeps_step_log()) {
      log.waiting = gauge.waiting;
      log.kv_used_share = gauge.kv_capacity_bytes > 0.0 ? gauge.kv_used_bytes / gauge.kv_capacity_bytes : 0.0;
      ctx->recorder->log_step(log, st);
    }
  }
}

Sample current_sample(const Context& ctx) {
  Sample s{sg4::Engine::get_clock(), ctx.in_system, 0, 0, 0.0, {}};
  double used = 0.0, capacity = 0.0;
  s.replica_kv_used_share.reserve(ctx.gauges.size());
  for (const ReplicaGauge& g : ctx.gauges) {
    s.waiting += g.waiting;
    s.running += g.running;
    used += g.kv_used_bytes;
    capacity += g.kv_capacity_bytes;
    s.replica_kv_used_share.push_back(g.kv_capacity_bytes > 0.0 ? g.kv_used_bytes / g.kv_capacity_bytes : 0.0);
  }
  s.kv_used_share = capacity > 0.0 ? used / capacity : 0.0;
  return s;
}

void sampler_actor(Context* ctx, double interval_s) {
  for (;;) {
    ctx->recorder->record_sample(current_sample(*ctx));
    sg4::this_actor::sleep_for(interval_s);
  }
}

}  // namespace fleetcast::simulator::serving
