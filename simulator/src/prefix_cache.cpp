#include "fleetcast/simulator/prefix_cache.hpp"

#include <stdexcept>

namespace fleetcast::simulator {

int PrefixCache::match(std::span<const Id> ids) const {
  int n = 0;
  for (Id id : ids) {
    if (!blocks_.contains(id)) break;
    ++n;
  }
  return n;
}

int PrefixCache::references(Id id) const {
  const auto it = blocks_.find(id);
  return it == blocks_.end() ? 0 : it->second.refs;
}

double PrefixCache::unreferenced_bytes(std::span<const Id> ids) const {
  double bytes = 0.0;
  for (Id id : ids) {
    const auto it = blocks_.find(id);
    if (it != blocks_.end() && it->second.refs == 0) bytes += it->second.bytes;
  }
  return bytes;
}

double PrefixCache::pin(std::span<const Id> ids) {
  double taken = 0.0;
  for (Id id : ids) {
    const auto it = blocks_.find(id);
    if (it == blocks_.end()) throw std::logic_error("PrefixCache::pin: block not cached");
    Block& b = it->second;
    if (b.refs++ > 0) continue;
    free_order_.erase(b.free_at);
    free_bytes_ -= b.bytes;
    taken += b.bytes;
  }
  if (free_order_.empty()) free_bytes_ = 0.0;  // no drift from adding and removing doubles
  return taken;
}

double PrefixCache::unpin(std::span<const Id> ids) {
  double freed = 0.0;
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    Block& b = blocks_.at(*it);
    if (b.refs <= 0) throw std::logic_error("PrefixCache::unpin: block not referenced");
    if (--b.refs > 0) continue;
    b.free_at = free_order_.insert(free_order_.end(), *it);
    free_bytes_ += b.bytes;
    freed += b.bytes;
  }
  return freed;
}

void PrefixCache::insert_pinned(Id id, double bytes) {
  if (!blocks_.emplace(id, Block{bytes, 1, free_order_.end()}).second)
    throw std::logic_error("PrefixCache::insert_pinned: block already cached");
}

double PrefixCache::evict(double bytes) {
  double freed = 0.0;
  while (freed < bytes && !free_order_.empty()) {
    const auto it = blocks_.find(free_order_.front());
    freed += it->second.bytes;
    free_bytes_ -= it->second.bytes;
    blocks_.erase(it);
    free_order_.pop_front();
    ++evicted_;
  }
  if (free_order_.empty()) free_bytes_ = 0.0;
  return freed;
}

}  // namespace fleetcast::simulator
