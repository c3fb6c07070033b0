// Where requests come from: an open-loop source replaying drawn arrival times, or closed-loop clients
// that each send their next request when the last one finished.
#include "context.hpp"

namespace fleetcast::simulator::serving {

void source_actor(Context* ctx) {
  auto& requests = ctx->recorder->requests();
  for (std::size_t i = 0; i < ctx->open_loop_requests; ++i) {
    Request& r = requests[i];
    // The front end (HTTP, tokenization) holds every request the same time: arrivals keep their order.
    sg4::this_actor::sleep_until(r.arrival_s + ctx->request_overhead_s);
    send(router_mailbox(), Message::Kind::arrival, &r);
  }
}

// Client `client` of a closed-loop class sends every clients-th request of the class, starting at its own.
void client_actor(Context* ctx, int closed_class, int client) {
  auto& requests = ctx->recorder->requests();
  const ClosedLoopClass& c = ctx->closed_loop[static_cast<std::size_t>(closed_class)];
  const int id = c.first_client + client;
  sg4::Mailbox* inbox = client_mailbox(id);
  const auto stride = static_cast<std::size_t>(c.clients);
  for (std::size_t i = c.begin + static_cast<std::size_t>(client); i < c.end; i += stride) {
    Request& r = requests[i];
    r.client = id;
    r.arrival_s = sg4::Engine::get_clock();
    send(ctx->request_overhead_s > 0.0 ? front_end_mailbox() : router_mailbox(), Message::Kind::arrival, &r);
    delete inbox->get<Message>();
    if (c.think_time_s > 0.0) sg4::this_actor::sleep_for(c.think_time_s);
  }
}

// The closed-loop clients' front end (HTTP, tokenization): it holds every request the same time and passes them on
// in the order they were sent, so that requests sent at one instant reach the router in the clients' order (their
// own timers would wake in an order SimGrid does not promise), as the fast closed-loop replay has them.
void front_end_actor(Context* ctx) {
  sg4::Mailbox* inbox = front_end_mailbox();
  for (;;) {
    auto* msg = inbox->get<Message>();
    sg4::this_actor::sleep_until(msg->request->arrival_s + ctx->request_overhead_s);
    send(router_mailbox(), msg);
  }
}

}  // namespace fleetcast::simulator::serving
