#pragma once
// The subcommands of `fleetcast`. Each takes its arguments after the subcommand name and returns an exit
// code; bad input throws InputError (main turns it into exit code 2).

#include <string>
#include <vector>

namespace fleetcast::cli {

using Args = std::vector<std::string>;

int run_simulate(const Args& args);
int run_presets(const Args& args);
int run_bench(const Args& args);
int run_step(const Args& args);
int run_calibrate(const Args& args);
int run_workload(const Args& args);
int run_validate(const Args& args);
int run_calibrate_serving(const Args& args);
int run_calibrate_steps(const Args& args);
int run_calibrate_prompt_ratio(const Args& args);
int run_sweep(const Args& args);
int run_plan(const Args& args);
int run_scenario(const Args& args);
std::string usage();

}  // namespace fleetcast::cli
