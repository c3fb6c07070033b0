#pragma once
// What a benchmark record says beyond its means (bench_results.cpp): per-request lengths, the percentiles it reports
// or lists the requests for, and what a speculative run measured.

#include <nlohmann/json.hpp>
#include <optional>

#include "bench_fields.hpp"
#include "fleetcast/traces/serving_results.hpp"

namespace fleetcast::traces::detail {

// SGLang's accept_length, vLLM's spec_decode_* keys: run.spec_accept_length, spec_draft_tokens and
// spec_position_acceptance; a bad one is returned.
std::optional<BadField> read_speculative(const nlohmann::json& r, MeasuredServingRun& run);

// Per-request lengths of the successful requests, where they differ (input_lens, output_lens).
void read_lengths(const nlohmann::json& r, MeasuredServingRun& run);

// The median_ and pNN_ keys of TTFT, TPOT and end-to-end latency; a bad one is returned.
std::optional<BadField> read_percentiles(const nlohmann::json& r, MeasuredServingRun& run);

// The percentiles the summary leaves out, from the per-request ttfts and itls where the record lists them.
void percentiles_from_details(const nlohmann::json& r, MeasuredServingRun& run);

}  // namespace fleetcast::traces::detail
