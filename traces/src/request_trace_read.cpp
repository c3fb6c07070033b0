#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

#include "request_trace_rows.hpp"

namespace fleetcast::traces {

std::string_view to_string(TraceFormat f) {
  switch (f) {
    case TraceFormat::azure:
      return "azure";
    case TraceFormat::mooncake:
      return "mooncake";
    case TraceFormat::burstgpt:
      return "burstgpt";
    case TraceFormat::csv:
      return "csv";
    case TraceFormat::jsonl:
      return "jsonl";
  }
  return "?";
}

TraceFormat trace_format_from(const std::string& name, const std::string& field) {
  for (TraceFormat f :
       {TraceFormat::azure, TraceFormat::mooncake, TraceFormat::burstgpt, TraceFormat::csv, TraceFormat::jsonl}) {
    if (name == to_string(f)) return f;
  }
  throw InputError("", field, name, "unknown trace format; valid: azure, mooncake, burstgpt, csv, jsonl");
}

namespace detail {

std::optional<long long> parse_integer(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    // "17.0" is a whole number written as a float (some exports do that).
    const auto d = parse_number(text);
    if (!d || *d != std::floor(*d) || std::abs(*d) > 9e15) return std::nullopt;
    return static_cast<long long>(*d);
  }
  return v;
}

std::optional<double> parse_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

}  // namespace

std::optional<WallClock> parse_wall_clock(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\r')) t.remove_suffix(1);
  // YYYY-MM-DD HH:MM:SS[.fraction]
  if (t.size() < 19 || t[4] != '-' || t[7] != '-' || (t[10] != ' ' && t[10] != 'T') || t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  const auto y = parse_integer(t.substr(0, 4)), mo = parse_integer(t.substr(5, 2)), d = parse_integer(t.substr(8, 2));
  const auto h = parse_integer(t.substr(11, 2)), mi = parse_integer(t.substr(14, 2));
  const auto sec = parse_integer(t.substr(17, 2));
  const bool has_fraction = t.size() > 19;
  const auto fraction = has_fraction ? parse_number("0" + std::string(t.substr(19))) : std::optional<double>(0.0);
  if (!y || !mo || !d || !h || !mi || !sec || !fraction || (has_fraction && t[19] != '.') || *mo < 1 || *mo > 12 ||
      *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *sec < 0 || *sec > 60) {
    return std::nullopt;
  }
  const long long days = days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d));
  return WallClock{days * 86400 + *h * 3600 + *mi * 60 + *sec, *fraction};
}

std::optional<int> token_count(RowSink& sink, long line, const std::string& column, std::string_view text) {
  const auto v = parse_integer(text);
  if (!v) {
    sink.bad(line, column, std::string(text), "not a whole number");
    return std::nullopt;
  }
  if (*v < 1 || *v > 100000000) {
    sink.bad(line, column, std::string(text), "a token count must be from 1 to 100,000,000");
    return std::nullopt;
  }
  return static_cast<int>(*v);
}

}  // namespace detail

RequestTrace read_request_trace(const std::string& path, const TraceReadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "", "cannot open the request trace");
  RequestTrace trace;
  trace.file = path;
  trace.format = options.format;
  detail::RowSink sink(trace, options.strict);
  const bool jsonl = options.format == TraceFormat::mooncake || options.format == TraceFormat::jsonl;
  if (jsonl) {
    detail::read_jsonl_trace(in, options, trace, sink);
  } else {
    detail::read_csv_trace(in, options, trace, sink);
  }
  if (trace.requests.empty()) {
    std::string why = std::to_string(trace.rows) + " data rows, none usable";
    if (!trace.first_bad_rows.empty()) {
      why += "; first: line " + std::to_string(trace.first_bad_rows.front().line) + ": " +
             trace.first_bad_rows.front().reason;
    }
    throw InputError(path, "", "", why);
  }
  std::stable_sort(trace.requests.begin(), trace.requests.end(),
                   [](const TraceRequest& a, const TraceRequest& b) { return a.arrival_s < b.arrival_s; });
  const double t0 = trace.requests.front().arrival_s;
  for (TraceRequest& r : trace.requests) r.arrival_s -= t0;
  if (trace.start_time_of_day_s >= 0.0) trace.start_time_of_day_s = std::fmod(trace.start_time_of_day_s + t0, 86400.0);
  return trace;
}

RequestTrace replay(const RequestTrace& trace, const ReplayOptions& o) {
  if (o.rate_scale <= 0.0) throw InputError(trace.file, "rate_scale", std::to_string(o.rate_scale), "must be > 0");
  if (o.loops < 1) throw InputError(trace.file, "loops", std::to_string(o.loops), "must be >= 1");
  if (o.window_start_s < 0.0 || (o.window_end_s > 0.0 && o.window_end_s <= o.window_start_s)) {
    throw InputError(trace.file, "window", std::to_string(o.window_start_s) + ":" + std::to_string(o.window_end_s),
                     "the window must start at >= 0 s and end after it starts (end 0: to the end of the trace)");
  }
  RequestTrace out = trace;
  out.requests.clear();
  // A window keeps the wall clock (its start moves); a rescaled or looped trace has none left.
  if (out.start_time_of_day_s >= 0.0) {
    out.start_time_of_day_s = o.rate_scale != 1.0 || o.loops > 1
                                  ? -1.0
                                  : std::fmod(out.start_time_of_day_s + o.window_start_s, 86400.0);
  }
  for (const TraceRequest& r : trace.requests) {
    if (r.arrival_s < o.window_start_s || (o.window_end_s > 0.0 && r.arrival_s >= o.window_end_s)) continue;
    TraceRequest c = r;
    c.arrival_s = (r.arrival_s - o.window_start_s) / o.rate_scale;
    out.requests.push_back(std::move(c));
  }
  if (out.requests.empty()) {
    throw InputError(trace.file, "window", std::to_string(o.window_start_s) + ":" + std::to_string(o.window_end_s),
                     "no request of the trace (" + std::to_string(trace.duration_s()) + " s long) falls in it");
  }
  const std::size_t n = out.requests.size();
  const double span = out.requests.back().arrival_s;
  // Each copy starts one mean gap after the previous one's last arrival (a single request: 1 s apart).
  const double period = span + (n > 1 ? span / static_cast<double>(n - 1) : 1.0);
  out.requests.reserve(n * static_cast<std::size_t>(o.loops));
  for (int k = 1; k < o.loops; ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      TraceRequest c = out.requests[i];
      c.arrival_s += k * period;
      out.requests.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace fleetcast::traces

namespace fleetcast::traces {

TraceFormat detect_trace_format(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "", "cannot open the request trace");
  std::string first;
  while (std::getline(in, first) && first.find_first_not_of(" \r\t") == std::string::npos) {
  }
  if (first.find("TIMESTAMP") != std::string::npos && first.find("ContextTokens") != std::string::npos) {
    return TraceFormat::azure;
  }
  if (first.find("Request tokens") != std::string::npos && first.find("Response tokens") != std::string::npos) {
    return TraceFormat::burstgpt;
  }
  if (first.find("\"input_length\"") != std::string::npos && first.find("\"timestamp\"") != std::string::npos) {
    return TraceFormat::mooncake;
  }
  throw InputError(path, "--format", "(not given)",
                   "the first line is not an Azure, BurstGPT or Mooncake trace's; give --format csv or jsonl with "
                   "--columns timestamp=NAME,input=NAME,output=NAME[,hash_ids=NAME] and --time-unit s|ms");
}

}  // namespace fleetcast::traces
