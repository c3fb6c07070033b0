// A pool of a disaggregated deployment seen as a deployment of its own.
#include "fleetcast/specs/deployment.hpp"

namespace fleetcast::specs {

DeploymentSpec pool_deployment(const DeploymentSpec& d, Pool pool) {
  DeploymentSpec p = d;
  p.disaggregation.reset();
  if (!d.disaggregation) return p;
  const PoolSpec& spec = pool == Pool::prefill ? d.disaggregation->prefill : d.disaggregation->decode;
  p.nodes = spec.nodes;
  p.replica = spec.replica;
  p.scheduler = spec.scheduler;
  return p;
}

int pool_first_gpu(const DeploymentSpec& d, Pool pool) {
  if (pool == Pool::prefill || !d.disaggregation) return 0;
  return d.disaggregation->prefill.nodes * d.gpus_per_node;
}

int serving_replicas(const DeploymentSpec& d) {
  if (!d.disaggregation) return d.num_replicas();
  return pool_deployment(d, Pool::prefill).num_replicas() + pool_deployment(d, Pool::decode).num_replicas();
}

}  // namespace fleetcast::specs
