// Where requests come from: an open-loop source replaying drawn arrival times, or closed-loop clients
// that each send their next request when the last one finished.
#include "context.hpp"

namespace fleetcast::simulator::serving {

void source_actor(Context* ctx) {
  for (Request& r : ctx->recorder->requests()) {
    sg4::this_actor::sleep_until(r.arrival_s);
    send(router_mailbox(), Message::Kind::arrival, &r);
  }
}

void client_actor(Context* ctx, int client, int clients) {
  auto& requests = ctx->recorder->requests();
  sg4::Mailbox* inbox = client_mailbox(client);
  const double think_s = ctx->scenario->workload.arrival.think_time_s;
  for (std::size_t i = static_cast<std::size_t>(client); i < requests.size(); i += static_cast<std::size_t>(clients)) {
    Request& r = requests[i];
    r.client = client;
    r.arrival_s = sg4::Engine::get_clock();
    send(router_mailbox(), Message::Kind::arrival, &r);
    delete inbox->get<Message>();
    if (think_s > 0.0) sg4::this_actor::sleep_for(think_s);
  }
}

}  // namespace fleetcast::simulator::serving
