// The simulator's unit tests check scheduling, routing, preemption and the step-time arithmetic against the
// datasheet profiles: they ask for them (FLEETCAST_PROFILES=datasheet, before the first profile lookup, which
// reads it once), so a refreshed serving fit in calibration/profiles/serving/ does not move their figures.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>

int main(int argc, char* argv[]) {
  setenv("FLEETCAST_PROFILES", "datasheet", 1);
  return Catch::Session().run(argc, argv);
}
