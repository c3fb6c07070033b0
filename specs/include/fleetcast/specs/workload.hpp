#pragma once
// The traffic: how requests arrive and how long their prompts and answers are.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetcast/specs/rate_profile.hpp"

namespace fleetcast::specs {

enum class LengthKind { fixed, uniform, lognormal, empirical };

// Token counts are integers >= 1. lognormal: the log of the length is normal with mean log(median)
// and standard deviation `sigma`; draws are clamped to [min, max].
struct LengthDistribution {
  LengthKind kind = LengthKind::fixed;
  int value = 0;             // fixed
  int min = 1;               // uniform (inclusive), lognormal clamp
  int max = 0;               // uniform (inclusive), lognormal clamp (0: the model's context)
  double median = 0.0;       // lognormal
  double sigma = 0.0;        // lognormal
  std::vector<int> values;   // empirical: drawn uniformly from the list

  double mean() const;  // analytic mean (clamping ignored for lognormal)
  bool operator==(const LengthDistribution&) const = default;
};

enum class ArrivalKind { poisson, gamma, closed_loop, trace };

// How closed-loop clients start. together: every client sends a whole request at time 0, so the clients run
// in lockstep (they arrive, prefill and finish together, wave after wave). spread: client i (0-based, of C)
// sends a first request whose output length is max(1, round(osl x (i + 1) / C)) (osl: that request's drawn
// output length), so the clients finish their first requests at evenly spread phases of one cycle and stay out
// of phase: the other extreme to together (docs/ACCURACY.md compares both). Those C first requests
// (arrival ranks 0..C-1 of a closed-loop-only workload) are warm-up, which the measurement window should leave
// out (measurement.warmup_fraction).
enum class ArrivalStart { together, spread };

// Replaying a request trace as it is: each request at its recorded time with its recorded lengths (and
// Mooncake's prefix block ids), optionally cut to [window_start_s, window_end_s), rescaled in rate (x2 halves
// every gap) and looped (traces/request_trace.hpp, replay). The simulator reads the file (simulator/
// trace_classes.hpp); the spec only names it.
struct TraceReplaySpec {
  std::string file;    // as written in the spec
  std::string path;    // `file` resolved against the folder of the spec that names it
  std::string format;  // "azure", "mooncake", "burstgpt"; "": detected from the first line
  double rate_scale = 1.0;
  double window_start_s = 0.0;
  double window_end_s = 0.0;  // 0: to the end
  int loops = 1;
  bool operator==(const TraceReplaySpec&) const = default;
};

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::poisson;
  // open loop: give `rate_per_s`, or `load` (share of the fleet's estimated capacity) and the rate follows
  double rate_per_s = 0.0;
  double load = 0.0;
  double cv = 1.0;        // gamma: coefficient of variation of inter-arrival times (1 is Poisson, > 1 bursty)
  int clients = 0;        // closed loop: concurrent clients, each sends its next request when the last finished
  double think_time_s = 0.0;
  ArrivalStart start = ArrivalStart::together;  // closed loop: how the clients start
  TraceReplaySpec trace;  // kind trace: the trace gives the times and the lengths (rate_per_s: its mean rate)
  RateProfileSpec rate_profile;  // poisson and gamma: a periodic shape around the mean rate (none by default)
  bool operator==(const ArrivalSpec&) const = default;
};

// Service-level objectives of a class, checked per request: TTFT <= ttft_ms and TPOT <= tpot_ms.
// 0 means that objective is not set (and not checked); given values are > 0.
struct SloSpec {
  double ttft_ms = 0.0;
  double tpot_ms = 0.0;
  bool any() const { return ttft_ms > 0.0 || tpot_ms > 0.0; }
  bool operator==(const SloSpec&) const = default;
};

// How a class's prompts share leading tokens (system prompts, few-shot templates, documents): each request
// starts with the `tokens`-token prefix of one of `groups` groups, drawn uniformly or by a Zipf law
// (group g, 0-based, with weight (g + 1)^-zipf_s). The input length counts the prefix; a drawn input
// shorter than tokens + 1 is raised to tokens + 1, so that every request has a token of its own.
enum class PrefixPopularity { uniform, zipf };

struct PrefixSpec {
  int groups = 1;
  int tokens = 0;
  PrefixPopularity popularity = PrefixPopularity::uniform;
  double zipf_s = 1.0;  // zipf only
  bool operator==(const PrefixSpec&) const = default;
};

// One kind of traffic in the mix: its own arrival process (own clients when closed loop), lengths and SLOs.
struct RequestClass {
  std::string name;  // non-empty, unique in the workload: the key of the report's per-class figures
  ArrivalSpec arrival;
  LengthDistribution input_tokens;
  LengthDistribution output_tokens;
  SloSpec slo;
  std::optional<PrefixSpec> prefix;  // absent: no prompt shares tokens with another
  bool operator==(const RequestClass&) const = default;
};

inline constexpr int kDefaultPrefixBlockTokens = 512;

// A mix of request classes. The single-class file form (top-level arrival and lengths) is one class named
// after the workload ("default" when the workload has no name).
struct WorkloadSpec {
  std::string name;
  std::vector<RequestClass> classes;
  // Tokens per prefix block: a request's prompt is identified block by block (Mooncake traces' hash_ids are
  // 512-token blocks), and a prefix cache hits whole blocks only.
  int prefix_block_tokens = kDefaultPrefixBlockTokens;

  bool has_open_loop() const;
  bool has_closed_loop() const;
  // True when the single-class form says it all: what to_json writes then, so old files echo unchanged.
  bool is_single_class_form() const;
  bool has_prefixes() const;  // some class declares a shared prefix
  bool operator==(const WorkloadSpec&) const = default;
};

// The name the single-class form gives its one class.
std::string single_class_name(const std::string& workload_name);

std::string_view to_string(LengthKind k);
std::string_view to_string(ArrivalKind k);
std::string_view to_string(ArrivalStart s);
std::string_view to_string(PrefixPopularity p);

}  // namespace fleetcast::specs
