#pragma once
// The typed error every library throws for bad input: what, where (file, field, value), what is valid.
// Only main() turns it into a message and exit code 2.

#include <stdexcept>
#include <string>

namespace fleetcast {

class InputError : public std::runtime_error {
public:
  InputError(std::string file, std::string field, std::string value, std::string problem)
      : std::runtime_error(format(file, field, value, problem)),
        file_(std::move(file)),
        field_(std::move(field)),
        value_(std::move(value)),
        problem_(std::move(problem)) {}

  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }
  const std::string& problem() const { return problem_; }

private:
  static std::string format(const std::string& file, const std::string& field, const std::string& value,
                            const std::string& problem) {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (!field.empty()) s += ": field '" + field + "'";
    if (!value.empty()) s += " = " + value;
    s += ": " + problem;
    return s;
  }
  std::string file_, field_, value_, problem_;
};

}  // namespace fleetcast
