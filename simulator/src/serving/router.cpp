// The router: places each arriving request on a replica by policy, counts completions, opens and closes
// the measurement window, and ends the simulation once every request is done.
#include <cstdio>

#include "context.hpp"

namespace fleetcast::simulator::serving {
namespace {

class Placement {
public:
  Placement(specs::RouterPolicy policy, int replicas) : policy_(policy), outstanding_(replicas, 0) {}

  int pick() {
    int chosen = 0;
    if (policy_ == specs::RouterPolicy::round_robin) {
      chosen = next_;
      next_ = (next_ + 1) % static_cast<int>(outstanding_.size());
    } else {  // least outstanding; ties go to the lowest index
      for (int r = 1; r < static_cast<int>(outstanding_.size()); ++r) {
        if (outstanding_[r] < outstanding_[chosen]) chosen = r;
      }
    }
    ++outstanding_[chosen];
    return chosen;
  }
  void done(int replica) { --outstanding_[replica]; }

private:
  specs::RouterPolicy policy_;
  std::vector<int> outstanding_;
  int next_ = 0;
};

void print_progress(std::int64_t done, std::int64_t total) {
  std::fprintf(stderr, "{\"phase\": \"simulate\", \"done\": %lld, \"total\": %lld, \"sim_time_s\": %.3f}\n",
               static_cast<long long>(done), static_cast<long long>(total), sg4::Engine::get_clock());
}

}  // namespace

void router_actor(Context* ctx, int replicas) {
  Placement placement(ctx->scenario->deployment.router, replicas);
  sg4::Mailbox* inbox = router_mailbox();
  const std::int64_t total = ctx->total_requests();
  const std::int64_t progress_every = std::max<std::int64_t>(1, total / 100);
  std::int64_t completed = 0;
  while (completed < total) {
    std::unique_ptr<Message> msg(inbox->get<Message>());
    Request* r = msg->request;
    const double now = sg4::Engine::get_clock();
    if (msg->kind == Message::Kind::arrival) {
      r->arrival_rank = ctx->arrivals++;
      if (r->arrival_rank == ctx->warmup_requests) ctx->recorder->open_window(now);
      if (r->arrival_rank == total - ctx->cooldown_requests) ctx->recorder->close_window(now);
      ++ctx->in_system;
      r->replica = placement.pick();
      send(replica_mailbox(r->replica), Message::Kind::arrival, r);
      continue;
    }
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
