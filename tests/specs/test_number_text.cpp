// The one reader of numbers written as text: the whole text or nothing.
#include <catch2/catch.hpp>

#include "fleetcast/specs/number_text.hpp"

using fleetcast::whole_text_number;

TEST_CASE("a number written as text is read only when the whole text is the number", "[number_text]") {
  CHECK(whole_text_number("8") == 8.0);
  CHECK(whole_text_number("0.85") == 0.85);
  CHECK(whole_text_number("1e-3") == 0.001);
  CHECK(whole_text_number("-2") == -2.0);
  // std::stod alone stops at the first character it cannot read and would give 1.5, 8 and 0.8.
  CHECK_FALSE(whole_text_number("1.5x").has_value());
  CHECK_FALSE(whole_text_number("8 GB").has_value());
  CHECK_FALSE(whole_text_number("0.8,").has_value());
  CHECK_FALSE(whole_text_number("").has_value());
  CHECK_FALSE(whole_text_number("abc").has_value());
  CHECK_FALSE(whole_text_number("1e999").has_value());  // beyond a double: std::out_of_range, not infinity
}
