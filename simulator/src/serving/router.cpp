// The router: places each arriving request on a replica by policy (router_policy.hpp), learns the replicas'
// load from their messages, counts completions, opens and closes the measurement window, and ends the
// simulation once every request is done.
#include <algorithm>
#include <cstdio>

#include "context.hpp"
#include "fleetcast/simulator/memory_model.hpp"

namespace fleetcast::simulator::serving {
namespace {

void print_progress(std::int64_t done, std::int64_t total) {
  std::fprintf(stderr, "{\"phase\": \"simulate\", \"done\": %lld, \"total\": %lld, \"sim_time_s\": %.3f}\n",
               static_cast<long long>(done), static_cast<long long>(total), sg4::Engine::get_clock());
}

}  // namespace

void router_actor(Context* ctx, int replicas) {
  const auto& s = *ctx->scenario;
  const bool kv_policy = s.deployment.router == specs::RouterPolicy::least_kv_load;
  Placement placement(s.deployment.router, replicas, s.seed, ctx->kv_capacity_bytes);
  if (s.deployment.router == specs::RouterPolicy::prefix_aware) {
    // The record of a replica holds as many prefix blocks as its KV cache does: beyond that it has evicted some.
    const int block = s.workload.prefix_block_tokens;
    const double block_bytes = kv_bytes_per_gpu(s.model, s.deployment, block);
    placement.track_prefixes(block, static_cast<std::size_t>(std::max(1.0, ctx->kv_capacity_bytes / block_bytes)));
  }
  sg4::Mailbox* inbox = router_mailbox();
  const std::int64_t total = ctx->total_requests();
  const std::int64_t progress_every = std::max<std::int64_t>(1, total / 100);
  std::int64_t completed = 0;
  while (completed < total) {
    std::unique_ptr<Message> msg(inbox->get<Message>());
    if (msg->kind == Message::Kind::load_report) {
      placement.report(msg->replica, msg->load);
      continue;
    }
    Request* r = msg->request;
    const double now = sg4::Engine::get_clock();
    if (msg->kind == Message::Kind::arrival) {
      r->arrival_rank = ctx->arrivals++;
      if (r->arrival_rank == ctx->warmup_requests) ctx->recorder->open_window(now);
      if (r->arrival_rank == total - ctx->cooldown_requests) ctx->recorder->close_window(now);
      ++ctx->in_system;
      // Only least_kv_load reads the prompt's KV; the others skip the memory model.
      const double prompt_bytes = kv_policy ? kv_bytes_per_gpu(s.model, s.deployment, r->input_tokens) : 0.0;
      r->replica = placement.place(prompt_bytes, r->prefix_blocks, r->input_tokens);
      send(replica_mailbox(r->replica), Message::Kind::arrival, r);
      continue;
    }
    placement.report(r->replica, msg->load);
    placement.done(r->replica);
    --ctx->in_system;
    ++completed;
    if (r->client >= 0) send(client_mailbox(r->client), Message::Kind::completion, r);
    if (ctx->progress_json && (completed % progress_every == 0 || completed == total)) print_progress(completed, total);
  }
  // Every arrival happened, so the window closed unless cool-down was empty: close it at the end.
  if (ctx->cooldown_requests == 0) ctx->recorder->close_window(sg4::Engine::get_clock());
}

}  // namespace fleetcast::simulator::serving
