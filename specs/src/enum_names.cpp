// The public to_string of each spec enum (Precision's lives in precision.cpp).

#include "enum_names.hpp"

namespace fleetcast::specs {

std::string_view to_string(RouterPolicy p) { return detail::name_of(detail::kRouterNames, p); }
std::string_view to_string(SchedulerPolicy p) { return detail::name_of(detail::kSchedulerPolicyNames, p); }
std::string_view to_string(PreemptionMode m) { return detail::name_of(detail::kPreemptionNames, m); }
std::string_view to_string(CapacityPolicy p) { return detail::name_of(detail::kCapacityPolicyNames, p); }
std::string_view to_string(SpeculativeMethod m) { return detail::name_of(detail::kSpeculativeMethodNames, m); }
std::string_view to_string(ExpertDistribution d) { return detail::name_of(detail::kExpertDistributionNames, d); }
std::string_view to_string(LengthKind k) { return detail::name_of(detail::kLengthKindNames, k); }
std::string_view to_string(ArrivalKind k) { return detail::name_of(detail::kArrivalKindNames, k); }
std::string_view to_string(ArrivalStart s) { return detail::name_of(detail::kArrivalStartNames, s); }
std::string_view to_string(PrefixPopularity p) { return detail::name_of(detail::kPrefixPopularityNames, p); }
std::string_view to_string(PricingKind k) { return detail::name_of(detail::kPricingNames, k); }

}  // namespace fleetcast::specs
