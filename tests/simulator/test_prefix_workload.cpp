// Prefix block ids of the drawn requests: shared within a group, unique elsewhere, groups drawn by popularity.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>

#include "fleetcast/simulator/request_generator.hpp"

using namespace fleetcast;
using Catch::Detail::Approx;

namespace {

specs::RequestClass prefixed(int groups, int prefix_tokens, int input_tokens,
                             specs::PrefixPopularity popularity = specs::PrefixPopularity::uniform, double s = 1.0) {
  specs::RequestClass c;
  c.arrival.kind = specs::ArrivalKind::poisson;
  c.arrival.rate_per_s = 1.0;
  c.input_tokens.kind = specs::LengthKind::fixed;
  c.input_tokens.value = input_tokens;
  c.output_tokens = c.input_tokens;
  c.prefix = specs::PrefixSpec{groups, prefix_tokens, popularity, s};
  return c;
}

}  // namespace

TEST_CASE("requests of one group share their prefix's block ids and no others", "[workload][prefix]") {
  // Prefix 1100 tokens over blocks of 512: blocks 0 and 1 are the group's; block 2 holds the prefix's last 76
  // tokens and the request's own, so it is the request's, as is block 3 (input 2100: 4 full blocks).
  const auto r = simulator::generate_class_requests(prefixed(3, 1100, 2100), 0, 300, 1.0, 5, 100000, 512);
  std::map<std::uint64_t, std::set<std::vector<std::uint64_t>>> by_first;  // group heads -> their prefixes
  std::set<std::uint64_t> own;
  for (const auto& x : r) {
    REQUIRE(x.prefix_blocks.size() == 4);
    by_first[x.prefix_blocks[0]].insert({x.prefix_blocks[0], x.prefix_blocks[1]});
    for (std::size_t j = 2; j < 4; ++j) CHECK(own.insert(x.prefix_blocks[j]).second);  // never seen before
  }
  CHECK(by_first.size() == 3);  // three groups, each with one two-block prefix
  for (const auto& [head, prefixes] : by_first) {
    CHECK(prefixes.size() == 1);
    CHECK_FALSE(own.contains(head));
  }
}

TEST_CASE("inputs count the prefix and keep a token of their own; prompts without a prefix share nothing",
          "[workload][prefix]") {
  specs::WorkloadSpec w;
  w.classes = {prefixed(2, 1024, 100), prefixed(2, 1024, 5000)};
  w.classes.push_back(prefixed(1, 1024, 3000));
  w.classes.back().prefix.reset();
  const auto r = simulator::generate_requests(w, {200, 200, 200}, {1.0, 1.0, 1.0}, 9, 100000);
  std::set<std::uint64_t> heads_by_class[3];
  std::set<std::uint64_t> all;
  std::size_t blocks = 0;
  for (const auto& x : r) {
    const auto k = static_cast<std::size_t>(x.class_index);
    CHECK(x.input_tokens == (k == 0 ? 1025 : k == 1 ? 5000 : 3000));  // 100 < 1024 + 1: raised
    REQUIRE(x.prefix_blocks.size() == static_cast<std::size_t>(x.input_tokens / 512));
    heads_by_class[k].insert(x.prefix_blocks[0]);
    all.insert(x.prefix_blocks.begin(), x.prefix_blocks.end());
    blocks += x.prefix_blocks.size();
  }
  CHECK(heads_by_class[0].size() == 2);
  CHECK(heads_by_class[1].size() == 2);
  CHECK(heads_by_class[2].size() == 200);  // no prefix: every prompt its own
  // Distinct ids: 2 shared per group (2 groups x 2 classes), every other block its own.
  const std::size_t shared_uses = 2 * 400;
  CHECK(all.size() == blocks - shared_uses + 2 * 4);
}

TEST_CASE("Zipf popularity: group g is drawn in proportion to (g + 1)^-s; uniform: alike", "[workload][prefix]") {
  const int n = 60000, groups = 4;
  const auto count_groups = [&](const specs::RequestClass& c) {
    std::map<std::uint64_t, int> counts;
    for (const auto& x : simulator::generate_class_requests(c, 0, n, 1.0, 3, 100000, 512)) ++counts[x.prefix_blocks[0]];
    std::vector<int> sorted;
    for (const auto& [id, k] : counts) sorted.push_back(k);
    std::sort(sorted.rbegin(), sorted.rend());
    return sorted;
  };
  const double s = 1.5;
  const auto zipf = count_groups(prefixed(groups, 512, 600, specs::PrefixPopularity::zipf, s));
  REQUIRE(zipf.size() == groups);
  double norm = 0.0;
  for (int g = 1; g <= groups; ++g) norm += std::pow(g, -s);
  for (int g = 0; g < groups; ++g)
    CHECK(zipf[static_cast<std::size_t>(g)] / double(n) == Approx(std::pow(g + 1, -s) / norm).margin(0.01));
  const auto uniform = count_groups(prefixed(groups, 512, 600));
  for (int k : uniform) CHECK(k / double(n) == Approx(0.25).margin(0.01));
}

TEST_CASE("a class's prefix draws leave its other draws unchanged", "[workload][prefix]") {
  auto plain = prefixed(3, 512, 600);
  plain.prefix.reset();
  plain.input_tokens.kind = specs::LengthKind::uniform;
  plain.input_tokens.min = 600;
  plain.input_tokens.max = 4000;
  auto with = plain;
  with.prefix = specs::PrefixSpec{3, 512, specs::PrefixPopularity::uniform, 1.0};
  const auto a = simulator::generate_class_requests(plain, 0, 500, 2.0, 11, 100000, 512);
  const auto b = simulator::generate_class_requests(with, 0, 500, 2.0, 11, 100000, 512);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].arrival_s == b[i].arrival_s);
    CHECK(a[i].input_tokens == b[i].input_tokens);  // draws >= 600 > 512 + 1: none raised
    CHECK(a[i].output_tokens == b[i].output_tokens);
  }
}
