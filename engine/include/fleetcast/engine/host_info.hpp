#pragma once
// What the trace header says about the machine, whatever the backend.

#include <string>

namespace fleetcast::engine {

std::string cpu_model();      // from /proc/cpuinfo; "unknown" elsewhere
int cpu_cores();              // logical CPUs this process may run on
std::string host_name();
std::string utc_date_now();   // "2025-06-01T12:34:56Z"
std::string engine_commit();  // the git commit the engine was built from, or "unknown"
// Bytes of the last-level cache (sysconf), or 32 MiB when the system does not say.
long last_level_cache_bytes();

}  // namespace fleetcast::engine
