// JSON Lines request traces: Mooncake (kvcache-ai/Mooncake FAST25-release/traces) and generic files.
#include <cmath>
#include <istream>
#include <nlohmann/json.hpp>

#include "request_trace_rows.hpp"

namespace fleetcast::traces::detail {
namespace {

constexpr int kMooncakeBlockTokens = 512;

std::string text_of(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

}  // namespace

void read_jsonl_trace(std::istream& in, const TraceReadOptions& options, RequestTrace& trace, RowSink& sink) {
  const bool mooncake = options.format == TraceFormat::mooncake;
  const std::string ts = mooncake ? "timestamp" : options.columns.timestamp;
  const std::string inp = mooncake ? "input_length" : options.columns.input;
  const std::string outp = mooncake ? "output_length" : options.columns.output;
  const std::string ids = mooncake ? "hash_ids" : options.columns.hash_ids;
  const double seconds_per_unit = mooncake ? 1e-3 : options.columns.seconds_per_unit;  // Mooncake: ms
  if (mooncake || !ids.empty()) trace.prefix_block_tokens = kMooncakeBlockTokens;

  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      sink.bad(number, "row", line.substr(0, 40), "not a JSON object");
      continue;
    }
    auto field = [&](const std::string& key) -> const nlohmann::json* {
      const auto it = j.find(key);
      if (it == j.end()) {
        sink.bad(number, key, "(missing)", "every row needs it");
        return nullptr;
      }
      return &*it;
    };
    const nlohmann::json* t = field(ts);
    if (!t) continue;
    if (!t->is_number() || !std::isfinite(t->get<double>())) {
      sink.bad(number, ts, text_of(*t), "not a number");
      continue;
    }
    const nlohmann::json* i = field(inp);
    if (!i) continue;
    const auto input = token_count(sink, number, inp, i->is_number() ? i->dump() : text_of(*i) + " (not a number)");
    if (!input) continue;
    const nlohmann::json* o = field(outp);
    if (!o) continue;
    const auto output = token_count(sink, number, outp, o->is_number() ? o->dump() : text_of(*o) + " (not a number)");
    if (!output) continue;
    TraceRequest r{t->get<double>() * seconds_per_unit, *input, *output, {}};
    if (!ids.empty()) {
      const nlohmann::json* h = field(ids);
      if (!h) continue;
      bool ok = h->is_array();
      for (const auto& v : ok ? *h : nlohmann::json::array()) ok = ok && v.is_number_unsigned();
      if (!ok) {
        sink.bad(number, ids, text_of(*h), "expected an array of non-negative integers");
        continue;
      }
      // One id per block the prompt starts (the last may be partial): never more than the prompt has.
      const auto blocks = static_cast<std::size_t>((*input + kMooncakeBlockTokens - 1) / kMooncakeBlockTokens);
      if (h->size() > blocks) {
        sink.bad(number, ids, std::to_string(h->size()) + " ids",
                 "more blocks than " + std::to_string(*input) + " input tokens fill (" + std::to_string(blocks) +
                     " of 512)");
        continue;
      }
      r.prefix_blocks = h->get<std::vector<std::uint64_t>>();
    }
    sink.good(std::move(r));
  }
}

}  // namespace fleetcast::traces::detail
