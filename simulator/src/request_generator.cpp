#include "fleetcast/simulator/request_generator.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "fleetcast/simulator/random.hpp"
#include "fleetcast/simulator/trace_classes.hpp"
#include "fleetcast/specs/error.hpp"

namespace fleetcast::simulator {
namespace {

int draw_length(const specs::LengthDistribution& d, Random& rng, int max_context) {
  switch (d.kind) {
    case specs::LengthKind::fixed:
      return d.value;
    case specs::LengthKind::uniform:
      return d.min + static_cast<int>(rng.below(static_cast<std::uint64_t>(d.max - d.min + 1)));
    case specs::LengthKind::lognormal: {
      const double x = d.median * std::exp(d.sigma * rng.normal());
      const int hi = d.max > 0 ? d.max : max_context;
      return std::clamp(static_cast<int>(std::lround(x)), std::max(1, d.min), hi);
    }
    case specs::LengthKind::empirical:
      return d.values[rng.below(d.values.size())];
  }
  return 1;
}

// Prefix block ids, unique by construction: bit 63 tells a request's own block from a shared one, then 12 bits
// of class, 31 bits of group (shared) or request (own) and 20 bits of block position.
constexpr int kClassBits = 12, kOwnerBits = 31, kPositionBits = 20;

std::uint64_t block_id(bool own, int class_index, std::int64_t owner, std::size_t position) {
  if (class_index >= (1 << kClassBits) || owner >= (std::int64_t{1} << kOwnerBits) ||
      position >= (std::size_t{1} << kPositionBits))
    throw std::invalid_argument("prefix block id out of range: class " + std::to_string(class_index) + ", " +
                                (own ? "request " : "group ") + std::to_string(owner) + ", block " +
                                std::to_string(position));
  return (static_cast<std::uint64_t>(own) << 63) |
         (static_cast<std::uint64_t>(class_index) << (kOwnerBits + kPositionBits)) |
         (static_cast<std::uint64_t>(owner) << kPositionBits) | position;
}

// Draws prefix groups: uniformly, or group g (0-based) with weight (g + 1)^-s.
class GroupDraw {
 public:
  GroupDraw(const specs::PrefixSpec& p, Random& rng) : rng_(rng) {
    if (p.popularity == specs::PrefixPopularity::uniform) return;
    double total = 0.0;
    for (int g = 0; g < p.groups; ++g) cumulative_.push_back(total += std::pow(g + 1.0, -p.zipf_s));
  }
  std::int64_t draw(int groups) {
    if (cumulative_.empty()) return static_cast<std::int64_t>(rng_.below(static_cast<std::uint64_t>(groups)));
    const double u = rng_.uniform() * cumulative_.back();
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    return std::min<std::int64_t>(it - cumulative_.begin(), groups - 1);
  }

 private:
  Random& rng_;
  std::vector<double> cumulative_;
};

// The prompt's full blocks: those inside the group's prefix are the group's, the rest the request's own (a
// block holding the prefix's last tokens and the request's first is the request's own).
std::vector<std::uint64_t> prefix_blocks(int class_index, std::int64_t request, std::int64_t group, int prefix_tokens,
                                         int input_tokens, int block_tokens) {
  const auto full = static_cast<std::size_t>(input_tokens / block_tokens);
  const auto shared = group >= 0 ? static_cast<std::size_t>(prefix_tokens / block_tokens) : std::size_t{0};
  std::vector<std::uint64_t> ids(full);
  for (std::size_t j = 0; j < full; ++j)
    ids[j] = j < shared ? block_id(false, class_index, group, j) : block_id(true, class_index, request, j);
  return ids;
}

// A trace class: the first `count` requests of its trace as recorded. The trace's block ids (Mooncake's
// hash_ids, shared between requests that share those tokens) keep their identity within the class: bit 63
// clear (a shared block), the class in its bits, the id in the low 51 bits; only full blocks carry ids.
std::vector<Request> replay_class_requests(const specs::RequestClass& c, int class_index, std::int64_t count,
                                           int prefix_block_tokens) {
  const traces::RequestTrace trace = load_class_trace(c);
  if (count > static_cast<std::int64_t>(trace.requests.size())) {
    throw InputError(c.arrival.trace.path, "num_requests", std::to_string(count),
                     "class '" + c.name + "' replays " + std::to_string(count) +
                         " requests but the trace (after window" + " and loops) holds " +
                         std::to_string(trace.requests.size()) + ": lower num_requests or raise arrival.loops");
  }
  constexpr std::uint64_t kIdMask = (std::uint64_t{1} << (kOwnerBits + kPositionBits)) - 1;
  std::vector<Request> requests(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const traces::TraceRequest& t = trace.requests[static_cast<std::size_t>(i)];
    Request& r = requests[static_cast<std::size_t>(i)];
    r.id = i;
    r.class_index = class_index;
    r.arrival_s = t.arrival_s;
    r.input_tokens = t.input_tokens;
    r.output_tokens = t.output_tokens;
    const std::size_t full = static_cast<std::size_t>(t.input_tokens / prefix_block_tokens);
    if (t.prefix_blocks.empty()) {
      r.prefix_blocks = prefix_blocks(class_index, i, -1, 0, t.input_tokens, prefix_block_tokens);
    } else {
      for (std::size_t j = 0; j < std::min(full, t.prefix_blocks.size()); ++j) {
        r.prefix_blocks.push_back((static_cast<std::uint64_t>(class_index) << (kOwnerBits + kPositionBits)) |
                                  (t.prefix_blocks[j] & kIdMask));
      }
    }
  }
  return requests;
}

}  // namespace

std::vector<Request> generate_class_requests(const specs::RequestClass& c, int class_index, std::int64_t count,
                                             double rate_per_s, std::uint64_t seed, int max_context,
                                             int prefix_block_tokens) {
  if (c.arrival.kind == specs::ArrivalKind::trace)
    return replay_class_requests(c, class_index, count, prefix_block_tokens);
  const auto stream = 3 * static_cast<std::uint64_t>(class_index);
  Random arrivals(seed, stream + 1), inputs(seed, stream + 2), outputs(seed, stream + 3);
  Random groups(seed, kPrefixGroupStreamBase + static_cast<std::uint64_t>(class_index));
  std::optional<GroupDraw> group_draw;
  if (c.prefix) group_draw.emplace(*c.prefix, groups);
  std::vector<Request> requests(static_cast<std::size_t>(count));
  double t = 0.0;
  const auto& a = c.arrival;
  // Gamma inter-arrival times with mean 1/rate and coefficient of variation cv: shape 1/cv^2.
  const double shape = a.kind == specs::ArrivalKind::gamma ? 1.0 / (a.cv * a.cv) : 1.0;
  for (std::int64_t i = 0; i < count; ++i) {
    Request& r = requests[static_cast<std::size_t>(i)];
    r.id = i;
    r.class_index = class_index;
    r.input_tokens = draw_length(c.input_tokens, inputs, max_context);
    r.output_tokens = draw_length(c.output_tokens, outputs, max_context);
    // Spread start: client i's first request (the class's i-th) answers (i + 1) / C of its drawn length, so
    // the clients finish at evenly spread phases of one cycle (specs/workload.hpp, ArrivalStart).
    if (a.kind == specs::ArrivalKind::closed_loop && a.start == specs::ArrivalStart::spread && i < a.clients) {
      const double share = static_cast<double>(i + 1) / a.clients;
      r.output_tokens = std::max(1, static_cast<int>(std::lround(r.output_tokens * share)));
    }
    // Only the prompt's full blocks carry ids (as Mooncake's hash_ids); with a shared prefix the input counts
    // it and keeps a token of its own.
    std::int64_t group = -1;
    if (c.prefix) {
      r.input_tokens = std::max(r.input_tokens, c.prefix->tokens + 1);
      group = group_draw->draw(c.prefix->groups);
    }
    const int prefix_tokens = c.prefix ? c.prefix->tokens : 0;
    r.prefix_blocks = prefix_blocks(class_index, i, group, prefix_tokens, r.input_tokens, prefix_block_tokens);
    switch (a.kind) {
      case specs::ArrivalKind::poisson:
        t += arrivals.exponential(1.0 / rate_per_s);
        break;
      case specs::ArrivalKind::gamma:
        t += arrivals.gamma(shape, 1.0 / (rate_per_s * shape));
        break;
      case specs::ArrivalKind::closed_loop:
      case specs::ArrivalKind::trace:
        continue;
    }
    r.arrival_s = specs::real_time_s(a.rate_profile, t);  // t is operational time: the profile shapes it
  }
  return requests;
}

std::vector<Request> generate_requests(const specs::WorkloadSpec& w, const std::vector<std::int64_t>& counts,
                                       const std::vector<double>& rates_per_s, std::uint64_t seed, int max_context) {
  std::vector<Request> open, closed;
  for (std::size_t k = 0; k < w.classes.size(); ++k) {
    const specs::RequestClass& c = w.classes[k];
    auto part = generate_class_requests(c, static_cast<int>(k), counts[k], rates_per_s[k], seed, max_context,
                                        w.prefix_block_tokens);
    auto& into = c.arrival.kind == specs::ArrivalKind::closed_loop ? closed : open;
    into.insert(into.end(), part.begin(), part.end());
  }
  // Classes were appended in index order, so a stable sort breaks ties in arrival time by class.
  std::stable_sort(open.begin(), open.end(),
                   [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
  open.insert(open.end(), closed.begin(), closed.end());
  for (std::size_t i = 0; i < open.size(); ++i) open[i].id = static_cast<std::int64_t>(i);
  return open;
}

}  // namespace fleetcast::simulator
