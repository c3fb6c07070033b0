// CSV request traces: Azure LLM inference (2023), BurstGPT, and generic files with a column mapping.
#include <algorithm>
#include <istream>
#include <map>
#include <optional>

#include "csv_fields.hpp"
#include "request_trace_rows.hpp"

namespace fleetcast::traces::detail {
namespace {

struct CsvColumns {
  std::string timestamp, input, output;
  bool wall_clock = false;  // Azure: timestamps are date-time text
  double seconds_per_unit = 1.0;
};

CsvColumns columns_for(const TraceReadOptions& o) {
  switch (o.format) {
    case TraceFormat::azure:
      return {"TIMESTAMP", "ContextTokens", "GeneratedTokens", true, 1.0};
    // BurstGPT (HPMLL/BurstGPT, BurstGPT_*.csv): Timestamp in seconds from the trace start.
    case TraceFormat::burstgpt:
      return {"Timestamp", "Request tokens", "Response tokens", false, 1.0};
    default:
      return {o.columns.timestamp, o.columns.input, o.columns.output, false, o.columns.seconds_per_unit};
  }
}

}  // namespace

void read_csv_trace(std::istream& in, const TraceReadOptions& options, RequestTrace& trace, RowSink& sink) {
  const CsvColumns want = columns_for(options);
  std::string line;
  long number = 0;
  // The header: the first non-empty line.
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \r") != std::string::npos) header = split_csv(line);
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < header.size(); ++i) index[header[i]] = i;
  std::string have;
  for (const auto& h : header) have += (have.empty() ? "" : ", ") + h;
  auto column = [&](const std::string& name, const std::string& role) {
    const auto it = index.find(name);
    if (it == index.end()) {
      throw InputError(trace.file, role, name,
                       "no such column in the header (line " + std::to_string(number) + ": " + have + ")");
    }
    return it->second;
  };
  const std::size_t ts = column(want.timestamp, "timestamp"), inp = column(want.input, "input"),
                    outp = column(want.output, "output");
  const std::size_t needed = std::max({ts, inp, outp}) + 1;
  const bool burstgpt = options.format == TraceFormat::burstgpt;
  std::optional<long long> base_s;

  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \r") == std::string::npos) continue;
    const std::vector<std::string> f = split_csv(line);
    if (f.size() < needed) {
      sink.bad(number, "row", std::to_string(f.size()) + " fields",
               "the header has " + std::to_string(header.size()) + " columns");
      continue;
    }
    std::optional<double> t;
    if (want.wall_clock) {
      // Seconds from the first row's whole second, so that the text's 0.1 us survive in a double.
      if (const auto w = parse_wall_clock(f[ts])) {
        if (!base_s) {
          base_s = w->whole_s;
          trace.start_time_of_day_s = static_cast<double>(*base_s % 86400);  // moved to the earliest row later
        }
        t = static_cast<double>(w->whole_s - *base_s) + w->fraction_s;
      }
    } else {
      t = parse_number(f[ts]);
    }
    if (!t) {
      sink.bad(number, want.timestamp, f[ts],
               want.wall_clock ? "not a date-time like 2023-11-16 18:15:46.68" : "not a number");
      continue;
    }
    // BurstGPT logs failed requests with 0 response tokens: they are failures, not zero-length answers.
    if (burstgpt && parse_integer(f[outp]) == 0) {
      sink.bad(number, want.output, f[outp], "0 response tokens: a failed request in BurstGPT's log");
      continue;
    }
    const auto input = token_count(sink, number, want.input, f[inp]);
    if (!input) continue;
    const auto output = token_count(sink, number, want.output, f[outp]);
    if (!output) continue;
    sink.good({*t * want.seconds_per_unit, *input, *output, {}});
  }
}

}  // namespace fleetcast::traces::detail
