#include "perfmodel/prefix_cache.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/internal_error.hpp"
#include "core/split_mix.hpp"

namespace infermark::perfmodel {

namespace {
constexpr int kDevice = 0;
constexpr int kHost = 1;
}  // namespace

PrefixChain::PrefixChain(std::shared_ptr<const std::vector<std::uint64_t>> hashes, int hash_tokens, int block_size,
                         int prompt_tokens)
    : hashes_(std::move(hashes)) {
  if (!hashes_ || hashes_->empty() || hash_tokens < 1 || block_size < 1) return;
  unit_tokens_ = std::lcm(hash_tokens, block_size);
  per_unit_ = unit_tokens_ / hash_tokens;
  const std::int64_t covered = std::min<std::int64_t>(std::int64_t(hashes_->size()) * hash_tokens, prompt_tokens);
  units_ = static_cast<int>(covered / unit_tokens_);
}

std::uint64_t PrefixChain::Key(int u) const {
  // The unit size is part of the key: units of different sizes never alias.
  const auto h = (*hashes_)[static_cast<std::size_t>((u + 1) * per_unit_ - 1)];
  return SplitMix64(h ^ (std::uint64_t(unit_tokens_) << 40));
}

PrefixCache::PrefixCache(const SchedulerConfig& config)
    : num_blocks_(config.num_blocks),
      free_(config.num_blocks),
      host_capacity_(config.prefix_caching ? std::max<std::int64_t>(config.host_kv_tokens, 0) : 0),
      link_ns_per_token_(config.host_link_seconds_per_token * 1e9),
      bytes_per_token_(config.host_kv_bytes_per_token) {
  // Room for as many GPU units as the pool has blocks (each unit holds at least one), so that
  // growing the tables never stalls a pass: in real time a rehash or a reallocation of a few
  // hundred thousand units takes milliseconds, all at once, in whichever pass crosses the size.
  if (config.prefix_caching) {
    const auto units = static_cast<std::size_t>(std::clamp<std::int64_t>(config.num_blocks, 0, std::int64_t{1} << 20));
    units_.reserve(units);
    spare_.reserve(units);
    by_key_.reserve(units);
  }
}

void PrefixCache::Link(int which, UnitId u) {
  Unit& x = units_[static_cast<std::size_t>(u)];
  List& l = lists_[which];
  x.prev[which] = l.tail;
  x.next[which] = -1;
  if (l.tail >= 0)
    units_[static_cast<std::size_t>(l.tail)].next[which] = u;
  else
    l.head = u;
  l.tail = u;
  x.linked[which] = true;
}

void PrefixCache::Unlink(int which, UnitId u) {
  Unit& x = units_[static_cast<std::size_t>(u)];
  List& l = lists_[which];
  if (x.prev[which] >= 0)
    units_[static_cast<std::size_t>(x.prev[which])].next[which] = x.next[which];
  else
    l.head = x.next[which];
  if (x.next[which] >= 0)
    units_[static_cast<std::size_t>(x.next[which])].prev[which] = x.prev[which];
  else
    l.tail = x.prev[which];
  x.prev[which] = x.next[which] = -1;
  x.linked[which] = false;
}

UnitId PrefixCache::NewUnit(std::uint64_t key, int tokens, int blocks) {
  UnitId u;
  if (!spare_.empty()) {
    u = spare_.back();
    spare_.pop_back();
    units_[static_cast<std::size_t>(u)] = Unit{};
  } else {
    u = static_cast<UnitId>(units_.size());
    units_.emplace_back();
  }
  Unit& x = units_[static_cast<std::size_t>(u)];
  x.key = key;
  x.tokens = tokens;
  x.blocks = blocks;
  by_key_.emplace(key, u);
  return u;
}

void PrefixCache::Drop(UnitId u) {
  by_key_.erase(units_[static_cast<std::size_t>(u)].key);
  spare_.push_back(u);
}

void PrefixCache::EvictDevice(TimeNs* ready) {
  const UnitId u = lists_[kDevice].head;
  INFERMARK_CHECK(u >= 0, "eviction from an empty LRU list");
  Unlink(kDevice, u);
  Unit& x = units_[static_cast<std::size_t>(u)];
  x.device = false;
  cached_ -= x.blocks;
  evictable_ -= x.blocks;
  free_ += x.blocks;
  stats_.evicted_tokens += x.tokens;
  if (x.host) {
    // Its copy on the host must be complete before the blocks are overwritten.
    if (ready != nullptr) *ready = std::max(*ready, x.host_ready);
  } else {
    Drop(u);
  }
}

bool PrefixCache::Allocate(std::int64_t n, TimeNs /*now*/, TimeNs* ready) {
  if (n <= 0) return true;
  if (n > Available()) return false;
  while (free_ < n) EvictDevice(ready);
  free_ -= n;
  own_ += n;
  return true;
}

void PrefixCache::Free(std::int64_t n) {
  if (n <= 0) return;
  own_ -= n;
  free_ += n;
}

PrefixMatch PrefixCache::Lookup(const PrefixChain& chain, int max_units) const {
  PrefixMatch m;
  const int n = std::min(chain.units(), max_units);
  bool on_device = true;
  for (int k = 0; k < n; ++k) {
    const auto it = by_key_.find(chain.Key(k));
    if (it == by_key_.end()) break;
    const Unit& x = units_[static_cast<std::size_t>(it->second)];
    if (!x.device) on_device = false;
    if (on_device) {
      ++m.device_units;
    } else {
      ++m.host_units;
      if (!x.device) ++m.load_units;
    }
    if (!x.device)
      m.blocks_needed += x.blocks;
    else if (x.refs == 0)
      m.blocks_needed += x.blocks;
    m.units.push_back(it->second);
  }
  return m;
}

TimeNs PrefixCache::Acquire(const PrefixMatch& match, TimeNs now, std::vector<UnitId>& out, TimeNs* ready) {
  // Units already on the GPU are held first, so that making room for the loads cannot evict them.
  for (const UnitId u : match.units) {
    Unit& x = units_[static_cast<std::size_t>(u)];
    if (!x.device) continue;
    if (x.refs++ == 0) {
      Unlink(kDevice, u);
      evictable_ -= x.blocks;
    }
  }
  std::int64_t load_tokens = 0;
  TimeNs written = now;
  for (const UnitId u : match.units) {
    Unit& x = units_[static_cast<std::size_t>(u)];
    if (x.device) continue;
    while (free_ < x.blocks) EvictDevice(ready);
    free_ -= x.blocks;
    cached_ += x.blocks;
    x.device = true;
    x.refs = 1;
    load_tokens += x.tokens;
    written = std::max(written, x.host_ready);
    Unlink(kHost, u);  // touched: most recently used on the host too
    Link(kHost, u);
  }
  for (const UnitId u : match.units) out.push_back(u);
  if (load_tokens == 0) return now;
  const double seconds = double(load_tokens) * link_ns_per_token_ * 1e-9;
  const TimeNs start = std::max({now, read_free_, written});
  read_free_ = start + static_cast<TimeNs>(std::llround(seconds * 1e9));
  stats_.onload_bytes += double(load_tokens) * bytes_per_token_;
  stats_.onload_seconds += seconds;
  stats_.onloaded_tokens += load_tokens;
  return read_free_;
}

void PrefixCache::Release(std::vector<UnitId>& units) {
  for (auto it = units.rbegin(); it != units.rend(); ++it) {
    Unit& x = units_[static_cast<std::size_t>(*it)];
    INFERMARK_CHECK(x.refs > 0 && x.device, "a released prefix unit is not held on the GPU");
    if (--x.refs == 0) {
      Link(kDevice, *it);
      evictable_ += x.blocks;
    }
  }
  units.clear();
}

void PrefixCache::WriteToHost(UnitId u, TimeNs now) {
  Unit& x = units_[static_cast<std::size_t>(u)];
  if (x.tokens > host_capacity_) return;
  while (host_used_ + x.tokens > host_capacity_) {
    const UnitId old = lists_[kHost].head;
    Unlink(kHost, old);
    Unit& o = units_[static_cast<std::size_t>(old)];
    o.host = false;
    host_used_ -= o.tokens;
    if (!o.device) Drop(old);
  }
  // Writes queue on the GPU → host link behind earlier ones and overlap with compute; only an
  // eviction of a unit whose write has not ended waits for it.
  const double seconds = double(x.tokens) * link_ns_per_token_ * 1e-9;
  const TimeNs start = std::max(now, write_free_);
  write_free_ = start + static_cast<TimeNs>(std::llround(seconds * 1e9));
  x.host = true;
  x.host_ready = write_free_;
  host_used_ += x.tokens;
  Link(kHost, u);
  stats_.offload_bytes += double(x.tokens) * bytes_per_token_;
  stats_.offload_seconds += seconds;
  stats_.offloaded_tokens += x.tokens;
}

UnitId PrefixCache::Promote(std::uint64_t key, int tokens, int blocks, TimeNs now) {
  own_ -= blocks;
  const auto it = by_key_.find(key);
  if (it != by_key_.end()) {
    const UnitId u = it->second;
    Unit& x = units_[static_cast<std::size_t>(u)];
    if (x.device) {
      // Computed twice (two sequences prefilled the same prefix at once): the sequence shares the
      // cached copy and its own copy's blocks are freed.
      free_ += blocks;
      if (x.refs++ == 0) {
        Unlink(kDevice, u);
        evictable_ -= x.blocks;
      }
      return u;
    }
    // Recomputed while a copy sits on the host: the sequence's blocks become the GPU copy.
    x.device = true;
    x.refs = 1;
    x.blocks = blocks;
    cached_ += blocks;
    return u;
  }
  const UnitId u = NewUnit(key, tokens, blocks);
  Unit& x = units_[static_cast<std::size_t>(u)];
  x.device = true;
  x.refs = 1;
  cached_ += blocks;
  if (host_capacity_ > 0) WriteToHost(u, now);
  return u;
}

bool PrefixCache::CheckInvariants() const {
  if (free_ < 0 || own_ < 0 || evictable_ < 0 || evictable_ > cached_) return false;
  if (free_ + own_ + cached_ != num_blocks_) return false;
  std::int64_t device_blocks = 0, unheld_blocks = 0, host_tokens = 0;
  std::size_t live = 0;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    const Unit& x = units_[i];
    const auto it = by_key_.find(x.key);
    if (it == by_key_.end() || it->second != static_cast<UnitId>(i)) continue;
    ++live;
    if (!x.device && !x.host) return false;
    if (!x.device && x.refs != 0) return false;
    if (x.device) device_blocks += x.blocks;
    if (x.device && x.refs == 0) {
      if (!x.linked[kDevice]) return false;
      unheld_blocks += x.blocks;
    } else if (x.linked[kDevice]) {
      return false;
    }
    if (x.host != x.linked[kHost]) return false;
    if (x.host) host_tokens += x.tokens;
  }
  if (live != by_key_.size()) return false;
  return device_blocks == cached_ && unheld_blocks == evictable_ && host_tokens == host_used_ &&
         host_used_ <= std::max<std::int64_t>(host_capacity_, 0);
}

}  // namespace infermark::perfmodel
