#pragma once
// The shape of one op case: named integer fields in a fixed order ({"m": 128, "n": 4096, "k": 4096}).
// The order is the op's own (see ops.hpp), so traces and messages read the same way every time.
// A few ops also carry text fields (model_step: the model preset and the phase); they keep their place in
// the order among the integers but are not among fields(), which stays the integer fields.

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace fleetcast::engine {

class Shape {
 public:
  using Field = std::pair<std::string, std::int64_t>;

  Shape() = default;
  Shape(std::initializer_list<Field> fields) : fields_(fields) {
    for (const auto& f : fields_) order_.push_back(f.first);
  }

  // Replaces the value of an existing field, or appends a new one.
  void set(const std::string& name, std::int64_t value);
  // Replaces or appends a text field.
  void set_text(const std::string& name, const std::string& value);
  bool has(const std::string& name) const;  // an integer field
  bool has_text(const std::string& name) const;
  // Throws std::out_of_range naming the field when absent.
  const std::string& text_at(const std::string& name) const;
  // Throws std::out_of_range naming the field when absent: a bug, since plans are validated up front.
  std::int64_t at(const std::string& name) const;
  const std::vector<Field>& fields() const { return fields_; }

  nlohmann::ordered_json to_json() const;
  std::string text() const;  // "m=128 n=4096 k=4096"

  bool operator==(const Shape&) const = default;
  bool operator<(const Shape& o) const { return fields_ != o.fields_ ? fields_ < o.fields_ : texts_ < o.texts_; }

 private:
  std::vector<Field> fields_;
  std::vector<std::pair<std::string, std::string>> texts_;
  std::vector<std::string> order_;  // every field's name, integer or text, in the order first set
};

// One measurement to take: an op at one shape in one precision.
struct OpCase {
  std::string op;
  std::string dtype;  // as requested by the plan; the backend says what it runs it as
  Shape shape;
  bool operator==(const OpCase&) const = default;
};

}  // namespace fleetcast::engine
