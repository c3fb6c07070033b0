#pragma once
// Number formats and what one element costs in memory.

#include <optional>
#include <string>
#include <string_view>

namespace fleetcast::specs {

enum class Precision { fp32, bf16, fp16, fp8, fp4, nvfp4, int4 };
inline constexpr int kPrecisionCount = 7;  // the enumerators above, numbered from 0
static_assert(static_cast<int>(Precision::int4) + 1 == kPrecisionCount);

// Bytes per element including block scales: fp4 is MXFP4 (one 8-bit scale per 32 values),
// nvfp4 one 8-bit scale per 16 values; int4 is weight-only INT4 with a BF16 scale per group of 32 (Kimi-K2's
// QAT checkpoints, AWQ/GPTQ); fp8 block scales (1 per 128x128) are negligible.
double bytes_per_element(Precision p);

// The tensor-core rate a GEMM in this format runs at ("bf16", "fp8", "fp4"): fp16 runs at the bf16 rate,
// nvfp4 at the fp4 rate, int4 at the bf16 rate (no tensor core multiplies INT4 by BF16: the serving kernels,
// Marlin and its successors, dequantise the weights in the tile and run BF16 MMAs).
std::string_view compute_class(Precision p);

std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view text);
// For error messages: "fp32, bf16, fp16, fp8, fp4, nvfp4, int4".
std::string_view valid_precisions();

}  // namespace fleetcast::specs
