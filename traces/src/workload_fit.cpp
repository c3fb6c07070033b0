#include "fleetcast/traces/workload_fit.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace fleetcast::traces {
namespace {

LengthFit fit_lengths(std::vector<int> v, int points) {
  LengthFit f;
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double sum = 0.0, log_sum = 0.0;
  for (int x : v) {
    sum += x;
    log_sum += std::log(static_cast<double>(x));
  }
  const double mu = log_sum / n;
  double log_ss = 0.0;
  for (int x : v) log_ss += (std::log(static_cast<double>(x)) - mu) * (std::log(static_cast<double>(x)) - mu);
  f.mean = sum / n;
  f.min = v.front();
  f.max = v.back();
  f.lognormal.kind = specs::LengthKind::lognormal;
  f.lognormal.median = std::exp(mu);
  f.lognormal.sigma = v.size() > 1 ? std::sqrt(log_ss / (n - 1.0)) : 0.0;
  f.lognormal.min = f.min;
  f.lognormal.max = f.max;
  // Quantile k of `points` at rank k (n - 1) / (points - 1): the sorted values thinned evenly, both ends kept.
  f.empirical.kind = specs::LengthKind::empirical;
  const int kept = std::min<int>(points, static_cast<int>(v.size()));
  for (int k = 0; k < kept; ++k) {
    const double rank = kept > 1 ? k * (n - 1.0) / (kept - 1.0) : 0.0;
    f.empirical.values.push_back(v[static_cast<std::size_t>(std::lround(rank))]);
  }
  return f;
}

// Rates by hour of day over the hours the trace covers (exposure: the seconds of each hour of day inside it).
specs::RateProfileSpec diurnal_profile(const RequestTrace& t) {
  const double origin = std::max(0.0, t.start_time_of_day_s), span = t.duration_s();
  std::vector<double> arrivals(24, 0.0), exposure_s(24, 0.0);
  for (const TraceRequest& q : t.requests) {
    arrivals[static_cast<std::size_t>(std::fmod(origin + q.arrival_s, 86400.0) / 3600.0) % 24] += 1.0;
  }
  for (double at = 0.0; at < span;) {
    const double clock = origin + at;
    const double next = (std::floor(clock / 3600.0) + 1.0) * 3600.0 - origin;
    const double end = std::min(next, span);
    exposure_s[static_cast<std::size_t>(std::fmod(clock, 86400.0) / 3600.0) % 24] += end - at;
    at = end;
  }
  specs::RateProfileSpec p;
  p.period_s = 86400.0;
  p.start_s = origin;
  for (std::size_t h = 0; h < 24; ++h) p.multipliers.push_back(arrivals[h] / exposure_s[h]);
  return p;
}

// Sample standard deviation / mean of the gaps between consecutive times.
double gap_cv(const std::vector<double>& times) {
  const double gaps = static_cast<double>(times.size() - 1);
  const double mean = (times.back() - times.front()) / gaps;
  double ss = 0.0;
  for (std::size_t i = 1; i < times.size(); ++i) ss += (times[i] - times[i - 1] - mean) * (times[i] - times[i - 1] - mean);
  return gaps > 1.0 && mean > 0.0 ? std::sqrt(ss / (gaps - 1.0)) / mean : 0.0;
}

// Multipliers with mean 1, so that a bin's multiplier reads as "x the mean rate".
void normalise(specs::RateProfileSpec& p) {
  double sum = 0.0;
  for (double m : p.multipliers) sum += m;
  for (double& m : p.multipliers) m *= static_cast<double>(p.multipliers.size()) / sum;
}

}  // namespace

WorkloadFit fit_workload(const RequestTrace& t, int points) {
  WorkloadFit f;
  const auto& r = t.requests;
  f.requests = static_cast<long>(r.size());
  f.duration_s = t.duration_s();
  std::vector<int> in, out;
  for (const TraceRequest& q : r) {
    in.push_back(q.input_tokens);
    out.push_back(q.output_tokens);
  }
  f.input = fit_lengths(std::move(in), std::max(2, points));
  f.output = fit_lengths(std::move(out), std::max(2, points));

  const int hours = static_cast<int>(f.duration_s / 3600.0);
  if (hours >= 2) {
    f.hourly_rate_per_s.assign(static_cast<std::size_t>(hours), 0.0);
    for (const TraceRequest& q : r) {
      const auto h = static_cast<std::size_t>(q.arrival_s / 3600.0);
      if (h < f.hourly_rate_per_s.size()) f.hourly_rate_per_s[h] += 1.0 / 3600.0;
    }
    if (f.duration_s >= 86400.0) {
      f.rate_profile = diurnal_profile(t);
    } else {
      f.rate_profile.period_s = hours * 3600.0;
      f.rate_profile.multipliers = f.hourly_rate_per_s;
    }
    normalise(f.rate_profile);
  }
  if (r.size() >= 2 && f.duration_s > 0.0) {
    std::vector<double> real, operational;
    for (const TraceRequest& q : r) {
      real.push_back(q.arrival_s);
      operational.push_back(specs::operational_time_s(f.rate_profile, q.arrival_s));
    }
    f.rate_per_s = static_cast<double>(r.size() - 1) / operational.back();
    f.interarrival_cv_raw = gap_cv(real);
    f.interarrival_cv = gap_cv(operational);
  }
  if (t.prefix_block_tokens > 0) {
    std::unordered_set<std::uint64_t> seen;
    double blocks = 0.0, reused = 0.0, tokens = 0.0, reused_tokens = 0.0;
    for (const TraceRequest& q : r) {
      tokens += q.input_tokens;
      for (std::size_t b = 0; b < q.prefix_blocks.size(); ++b) {
        // The last block of a prompt may be partial.
        const double block_tokens =
            std::min<double>(t.prefix_block_tokens, q.input_tokens - static_cast<double>(b) * t.prefix_block_tokens);
        blocks += 1.0;
        if (!seen.insert(q.prefix_blocks[b]).second) {
          reused += 1.0;
          reused_tokens += block_tokens;
        }
      }
    }
    f.prefix_block_reuse = blocks > 0.0 ? reused / blocks : 0.0;
    f.prefix_token_reuse = tokens > 0.0 ? reused_tokens / tokens : 0.0;
  }
  return f;
}

specs::WorkloadSpec WorkloadFit::workload(const std::string& name, bool empirical) const {
  specs::RequestClass c;
  c.name = name;
  const bool poisson = std::abs(interarrival_cv - 1.0) <= 0.1;
  c.arrival.kind = poisson ? specs::ArrivalKind::poisson : specs::ArrivalKind::gamma;
  c.arrival.rate_per_s = rate_per_s;
  if (!poisson) c.arrival.cv = interarrival_cv;
  c.arrival.rate_profile = rate_profile;
  c.input_tokens = empirical ? input.empirical : input.lognormal;
  c.output_tokens = empirical ? output.empirical : output.lognormal;
  specs::WorkloadSpec w;
  w.name = name;
  w.classes.push_back(std::move(c));
  return w;
}

}  // namespace fleetcast::traces
