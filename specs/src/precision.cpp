#include "fleetcast/specs/precision.hpp"

#include "enum_names.hpp"

namespace fleetcast::specs {

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32:
      return 4.0;
    case Precision::bf16:
    case Precision::fp16:
      return 2.0;
    case Precision::fp8:
      return 1.0;
    case Precision::fp4:
      return 0.5 + 1.0 / 32.0;  // MXFP4: one 8-bit scale per 32 values
    case Precision::nvfp4:
      return 0.5 + 1.0 / 16.0;  // NVFP4: one 8-bit scale per 16 values
    case Precision::int4:
      return 0.5 + 2.0 / 32.0;  // INT4 weight-only: one BF16 scale per group of 32
  }
  return 2.0;
}

std::string_view compute_class(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";  // no preset lists an fp32 rate: HardwareSpec::peak_flops throws
    case Precision::bf16:
    case Precision::fp16:
    case Precision::int4:
      return "bf16";
    case Precision::fp8:
      return "fp8";
    case Precision::fp4:
    case Precision::nvfp4:
      return "fp4";
  }
  return "bf16";
}

std::string_view to_string(Precision p) { return detail::name_of(detail::kPrecisionNames, p); }

std::optional<Precision> parse_precision(std::string_view text) {
  return detail::value_of(detail::kPrecisionNames, text);
}

std::string_view valid_precisions() { return "fp32, bf16, fp16, fp8, fp4, nvfp4, int4"; }

}  // namespace fleetcast::specs
