// read_json_file and load_scenario on missing and broken files.

#include "fleetcast/specs/load.hpp"
#include "test_support.hpp"

using namespace fleetcast::specs;
using namespace fleetcast::specs::test;

TEST_CASE("read_json_file reads a file", "[specs][files]") {
  ScratchDir dir;
  const auto path = dir.write("ok.json", R"({"a": [1, 2.5, "x"]})");
  const json j = read_json_file(path);
  CHECK(j["a"][0] == 1);
  CHECK(j["a"][2] == "x");
}

TEST_CASE("a missing file is an InputError naming it", "[specs][files][errors]") {
  ScratchDir dir;
  const auto path = dir.path() / "absent.json";
  const auto e = input_error_of([&] { read_json_file(path); });
  CHECK(e.file() == path.string());
  CHECK(e.field().empty());
  CHECK(e.value().empty());
  CHECK(e.problem() == "cannot open file");
  CHECK_THROWS_WITH(load_scenario(path), Catch::Contains("absent.json") && Catch::Contains("cannot open file"));
}

TEST_CASE("a JSON syntax error names the file and the position", "[specs][files][errors]") {
  ScratchDir dir;
  const auto path = dir.write("broken.json", "{\n  \"name\": \"x\",\n  \"nodes\": ,\n}\n");
  const auto e = input_error_of([&] { read_json_file(path); });
  CHECK(e.file() == path.string());
  CHECK_THAT(e.problem(), Catch::Contains("line 3") && Catch::Contains("byte"));
  CHECK_THAT(std::string(e.what()), Catch::Contains("broken.json"));
  CHECK_THAT(e.problem(), !Catch::Contains("[json.exception"));
}

TEST_CASE("load_scenario rejects a file whose top level is not an object", "[specs][files][errors]") {
  ScratchDir dir;
  const auto path = dir.write("list.json", "[1, 2]");
  CHECK_THROWS_WITH(load_scenario(path), Catch::Contains("list.json") && Catch::Contains("expected an object"));
}
