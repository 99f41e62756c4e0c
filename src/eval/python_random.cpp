#include "eval/python_random.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

namespace infermark::eval {
namespace {

constexpr std::size_t kN = 624;
constexpr std::size_t kM = 397;

int BitLength(std::uint64_t n) {
  int bits = 0;
  while (n != 0) {
    ++bits;
    n >>= 1;
  }
  return bits;
}

}  // namespace

PythonRandom::PythonRandom(std::uint64_t seed) {
  // Python splits the seed's absolute value into 32-bit words, least significant first (0 is [0]).
  std::vector<std::uint32_t> key;
  do {
    key.push_back(static_cast<std::uint32_t>(seed & 0xffffffffu));
    seed >>= 32;
  } while (seed != 0);

  mt_[0] = 19650218u;
  for (std::size_t i = 1; i < kN; ++i) {
    mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
  }
  std::size_t i = 1;
  std::size_t j = 0;
  for (std::size_t k = std::max(kN, key.size()); k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<std::uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (std::size_t k = kN - 1; k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - static_cast<std::uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000u;
  pos_ = kN;
}

void PythonRandom::Generate() {
  for (std::size_t k = 0; k < kN; ++k) {
    const std::uint32_t y = (mt_[k] & 0x80000000u) | (mt_[(k + 1) % kN] & 0x7fffffffu);
    mt_[k] = mt_[(k + kM) % kN] ^ (y >> 1) ^ ((y & 1u) != 0 ? 0x9908b0dfu : 0u);
  }
  pos_ = 0;
}

std::uint32_t PythonRandom::Next32() {
  if (pos_ >= kN) Generate();
  std::uint32_t y = mt_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

std::uint32_t PythonRandom::GetRandBits(int k) {
  if (k < 1 || k > 32) throw std::invalid_argument("getrandbits: k must be in [1, 32]");
  return Next32() >> (32 - k);
}

std::uint32_t PythonRandom::RandBelow(std::uint32_t n) {
  if (n == 0) throw std::invalid_argument("randbelow: n must be positive");
  const int k = BitLength(n);
  std::uint32_t r = GetRandBits(k);
  while (r >= n) r = GetRandBits(k);
  return r;
}

std::vector<std::size_t> PythonRandom::SampleIndices(std::size_t n, std::size_t k) {
  if (k > n) throw std::invalid_argument("sample larger than population");
  if (n >= (std::size_t{1} << 32)) throw std::invalid_argument("population too large");
  std::vector<std::size_t> result(k);
  // The size below which Python copies the population into a pool instead of keeping a set.
  std::size_t setsize = 21;
  if (k > 5) setsize += static_cast<std::size_t>(std::pow(4.0, std::ceil(std::log(double(k) * 3) / std::log(4.0))));
  if (n <= setsize) {
    std::vector<std::size_t> pool(n);
    for (std::size_t i = 0; i < n; ++i) pool[i] = i;
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t j = RandBelow(static_cast<std::uint32_t>(n - i));
      result[i] = pool[j];
      pool[j] = pool[n - i - 1];
    }
    return result;
  }
  std::unordered_set<std::size_t> selected;
  for (std::size_t i = 0; i < k; ++i) {
    std::size_t j = RandBelow(static_cast<std::uint32_t>(n));
    while (selected.count(j) != 0) j = RandBelow(static_cast<std::uint32_t>(n));
    selected.insert(j);
    result[i] = j;
  }
  return result;
}

}  // namespace infermark::eval
