#pragma once
// Request traces people have: arrival times and token counts of real serving logs, read into one form the
// simulator replays and `fleetcast workload fit` summarises.
//   azure     Azure LLM inference CSV (TIMESTAMP wall-clock text, ContextTokens, GeneratedTokens)
//   mooncake  Mooncake JSONL (timestamp in ms, input_length, output_length, hash_ids of 512-token blocks)
//   burstgpt  BurstGPT CSV (Timestamp in s, Model, Request tokens, Response tokens, Total tokens, Log Type)
//   csv/jsonl a generic file with a column mapping (timestamp, input, output, optional hash_ids) and a unit
// Bad rows are skipped and counted with the line numbers of the first few, or fail the read under `strict`:
// never a silent zero.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fleetcast::traces {

enum class TraceFormat { azure, mooncake, burstgpt, csv, jsonl };
std::string_view to_string(TraceFormat f);
// "azure", "mooncake", ...; throws InputError naming `field` for an unknown name.
TraceFormat trace_format_from(const std::string& name, const std::string& field);

struct TraceRequest {
  double arrival_s = 0.0;  // from the trace's first request
  int input_tokens = 0;
  int output_tokens = 0;
  std::vector<std::uint64_t> prefix_blocks;  // hash ids of the prompt's leading blocks (Mooncake), else empty
};

// Where a generic file keeps each field (column names for csv, keys for jsonl) and the timestamp's unit.
struct ColumnMapping {
  std::string timestamp = "timestamp";
  std::string input = "input_tokens";
  std::string output = "output_tokens";
  std::string hash_ids;  // empty: none
  double seconds_per_unit = 1.0;
};

struct TraceReadOptions {
  TraceFormat format = TraceFormat::azure;
  ColumnMapping columns;  // csv and jsonl only
  bool strict = false;    // a bad row is an error instead of skipped
};

struct BadRow {
  long line = 0;  // 1-based line in the file
  std::string reason;
};

struct RequestTrace {
  std::string file;
  TraceFormat format = TraceFormat::azure;
  std::vector<TraceRequest> requests;  // in arrival order
  long rows = 0;                       // data rows read (header excluded), good and bad
  long skipped = 0;
  std::vector<BadRow> first_bad_rows;  // at most kBadRowsKept
  int prefix_block_tokens = 0;         // tokens per hash id (512 for Mooncake), 0 without ids
  double start_time_of_day_s = -1.0;   // wall-clock traces (Azure): the first request's seconds after midnight

  double duration_s() const { return requests.empty() ? 0.0 : requests.back().arrival_s; }
};

constexpr std::size_t kBadRowsKept = 5;

// Reads the whole file. Throws InputError (file, field, value) when the file cannot be read, its header lacks
// a needed column, it holds no good row, or (strict) at the first bad row. Rows out of time order are sorted.
RequestTrace read_request_trace(const std::string& path, const TraceReadOptions& options);

// Replay transformations, applied in this order: cut to [window_start_s, window_end_s) (times shifted to start
// at 0), scale the rate (x2 halves every gap), repeat `loops` times back to back (each copy starting one mean
// gap after the previous one ended).
struct ReplayOptions {
  double window_start_s = 0.0;
  double window_end_s = 0.0;  // 0: to the end
  double rate_scale = 1.0;
  int loops = 1;
};
RequestTrace replay(const RequestTrace& trace, const ReplayOptions& options);

}  // namespace fleetcast::traces

namespace fleetcast::traces {

// The format a file's first line says: Azure's or BurstGPT's CSV header, Mooncake's JSON keys. Throws
// InputError naming --format when the file is none of those (a generic file needs --format and --columns).
TraceFormat detect_trace_format(const std::string& path);

}  // namespace fleetcast::traces
