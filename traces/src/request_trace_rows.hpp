#pragma once
// Shared pieces of the request-trace readers: field parsing and the bookkeeping of good and bad rows.

#include <optional>
#include <string>
#include <string_view>

#include "fleetcast/specs/error.hpp"
#include "fleetcast/traces/request_trace.hpp"

namespace fleetcast::traces::detail {

std::optional<long long> parse_integer(std::string_view text);
std::optional<double> parse_number(std::string_view text);
// "2023-11-16 18:15:46.6805900" (Azure's wall-clock text) -> whole seconds since 1970-01-01 UTC and the
// fraction apart: as one double, 1.7e9 s would keep only ~0.2 us of the 0.1 us the text gives.
struct WallClock {
  long long whole_s = 0;
  double fraction_s = 0.0;
};
std::optional<WallClock> parse_wall_clock(std::string_view text);

// Collects rows into a trace: a good one is kept, a bad one counted (its line kept among the first few) or,
// under strict reading, thrown as an InputError naming the column, the value and the line.
class RowSink {
 public:
  RowSink(RequestTrace& trace, bool strict) : trace_(trace), strict_(strict) {}
  void good(TraceRequest r) {
    ++trace_.rows;
    trace_.requests.push_back(std::move(r));
  }
  void bad(long line, const std::string& column, const std::string& value, const std::string& reason) {
    ++trace_.rows;
    ++trace_.skipped;
    if (strict_) throw InputError(trace_.file, column, value, "line " + std::to_string(line) + ": " + reason);
    if (trace_.first_bad_rows.size() < kBadRowsKept) {
      trace_.first_bad_rows.push_back({line, column + " = " + value + ": " + reason});
    }
  }

 private:
  RequestTrace& trace_;
  bool strict_;
};

// Token counts: whole numbers >= 1 (a request with no prompt or no answer is not one the simulator can serve).
// Returns the count, or reports the row bad and returns nothing.
std::optional<int> token_count(RowSink& sink, long line, const std::string& column, std::string_view text);

void read_csv_trace(std::istream& in, const TraceReadOptions& options, RequestTrace& trace, RowSink& sink);
void read_jsonl_trace(std::istream& in, const TraceReadOptions& options, RequestTrace& trace, RowSink& sink);

}  // namespace fleetcast::traces::detail
