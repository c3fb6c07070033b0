#pragma once
// What the serving actors share: read-only configuration, the recorder they write observations to, and
// gauges the sampler reads. Actors talk to each other only through mailboxes; this is not a channel.

#include <cstdint>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "fleetcast/simulator/recorder.hpp"
#include "fleetcast/simulator/router_policy.hpp"
#include "fleetcast/simulator/step_time.hpp"
#include "fleetcast/specs/scenario.hpp"

namespace fleetcast::simulator::serving {

namespace sg4 = simgrid::s4u;

// A load report carries no request; a completion carries the replica's KV figures after its last step too.
// Disaggregation adds: `prefilled` (a prefill replica to the router: its part is done, with its KV figures) and
// `kv_transfer` (a prefill replica to a decode replica: the prompt's KV and the first token).
struct Message {
  enum class Kind { arrival, completion, load_report, prefilled, kv_transfer } kind;
  Request* request = nullptr;
  int replica = -1;
  KvLoadReport load;
};

// A closed-loop class: its requests are [begin, end) of the recorder's, served by clients numbered
// first_client.. first_client + clients - 1 across all closed-loop classes.
struct ClosedLoopClass {
  std::size_t begin = 0;
  std::size_t end = 0;
  int clients = 0;
  int first_client = 0;
  double think_time_s = 0.0;
};

struct ReplicaGauge {
  int waiting = 0;
  int running = 0;
  double kv_used_bytes = 0.0;
  double kv_capacity_bytes = 0.0;
  long long preemptions = 0;
  long long prefix_evicted_blocks = 0;
};

// A pool of replicas [first_replica, first_replica + replicas): one pool doing both without disaggregation;
// with it, the prefill pool (replicas numbered first) and the decode pool.
enum class Role { both, prefill, decode };
struct PoolContext {
  Role role = Role::both;
  const specs::DeploymentSpec* deployment = nullptr;  // the pool's own nodes, layout and scheduler
  const StepTimeModel* step_model = nullptr;
  double kv_capacity_bytes = 0.0;  // per GPU
  int first_replica = 0;
  int replicas = 0;
  int index = -1;  // the recorder's pool totals: -1 none, 0 prefill, 1 decode
};

struct Context {
  const specs::ScenarioSpec* scenario = nullptr;
  const StepTimeModel* step_model = nullptr;
  Recorder* recorder = nullptr;
  std::vector<ReplicaGauge> gauges;
  int in_system = 0;
  std::int64_t arrivals = 0;
  std::int64_t warmup_requests = 0;  // arrival ranks [warmup, total - cooldown) are measured
  std::int64_t cooldown_requests = 0;
  std::size_t open_loop_requests = 0;  // the first requests, in arrival order
  std::vector<ClosedLoopClass> closed_loop;
  int gpus_per_replica = 1;
  double kv_capacity_bytes = 0.0;      // per GPU
  double host_link_bytes_per_s = 0.0;  // per GPU, one direction: KV swapped to host memory and back
  double request_overhead_s = 0.0;     // front end: from a client's send to the router having the request
  bool progress_json = false;
  std::vector<PoolContext> pools;         // one (role both), or prefill then decode
  std::vector<sg4::Host*> replica_hosts;  // disaggregation: each replica's first GPU, where KV leaves and lands

  bool disaggregated() const { return pools.size() == 2; }
  const PoolContext& pool_of(int replica) const {
    return pools.size() == 2 && replica >= pools[1].first_replica ? pools[1] : pools[0];
  }

  std::int64_t total_requests() const { return static_cast<std::int64_t>(recorder->requests().size()); }
};

inline sg4::Mailbox* router_mailbox() { return sg4::Mailbox::by_name("router"); }
inline sg4::Mailbox* replica_mailbox(int r) { return sg4::Mailbox::by_name("replica." + std::to_string(r)); }
inline sg4::Mailbox* kv_mailbox(std::int64_t request) { return sg4::Mailbox::by_name("kv." + std::to_string(request)); }
inline sg4::Mailbox* front_end_mailbox() { return sg4::Mailbox::by_name("front_end"); }
inline sg4::Mailbox* client_mailbox(int c) { return sg4::Mailbox::by_name("client." + std::to_string(c)); }

// Fire and forget: the sender does not wait for the receiver (a request does not block the router while a
// replica is busy in a step).
inline void send(sg4::Mailbox* mb, Message* m) { mb->put_init(m, 0)->detach(); }
inline void send(sg4::Mailbox* mb, Message::Kind kind, Request* r) { send(mb, new Message{kind, r, -1, {}}); }

void source_actor(Context* ctx);
void client_actor(Context* ctx, int closed_class, int client);
void front_end_actor(Context* ctx);
void router_actor(Context* ctx, int replicas);
void replica_actor(Context* ctx, int replica);
void sampler_actor(Context* ctx, double interval_s);
// The system's state now, as the sampler records it (also taken once more when the run ends).
Sample current_sample(const Context& ctx);
// Receives one request's KV on the decode replica's first GPU host and hands it to that replica.
void kv_receiver_actor(std::int64_t request, int decode_replica);

}  // namespace fleetcast::simulator::serving
