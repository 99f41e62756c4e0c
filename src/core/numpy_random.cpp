#include "core/numpy_random.hpp"

#include <cmath>

namespace infermark {
namespace {

constexpr std::size_t kN = 624;
constexpr std::size_t kM = 397;
constexpr std::uint32_t kMatrixA = 0x9908b0dfU;
constexpr std::uint32_t kUpper = 0x80000000U;
constexpr std::uint32_t kLower = 0x7fffffffU;

void InitGenrand(std::array<std::uint32_t, kN>& key, std::uint32_t seed) {
  key[0] = seed;
  for (std::size_t i = 1; i < kN; ++i) {
    key[i] = 1812433253U * (key[i - 1] ^ (key[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
  }
}

}  // namespace

NumpyRandomState::NumpyRandomState(std::uint32_t seed) {
  InitGenrand(key_, seed);
}

NumpyRandomState::NumpyRandomState(std::span<const std::uint32_t> init_key) {
  InitGenrand(key_, 19650218U);
  std::size_t i = 1, j = 0;
  const std::size_t length = init_key.size();
  for (std::size_t k = kN > length ? kN : length; k > 0; --k) {
    key_[i] =
        (key_[i] ^ ((key_[i - 1] ^ (key_[i - 1] >> 30)) * 1664525U)) + init_key[j] + static_cast<std::uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      key_[0] = key_[kN - 1];
      i = 1;
    }
    if (j >= length) j = 0;
  }
  for (std::size_t k = kN - 1; k > 0; --k) {
    key_[i] = (key_[i] ^ ((key_[i - 1] ^ (key_[i - 1] >> 30)) * 1566083941U)) - static_cast<std::uint32_t>(i);
    ++i;
    if (i >= kN) {
      key_[0] = key_[kN - 1];
      i = 1;
    }
  }
  key_[0] = 0x80000000U;
}

void NumpyRandomState::Generate() {
  for (std::size_t i = 0; i < kN; ++i) {
    const std::uint32_t y = (key_[i] & kUpper) | (key_[(i + 1) % kN] & kLower);
    key_[i] = key_[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1U) != 0 ? kMatrixA : 0U);
  }
  pos_ = 0;
}

std::uint32_t NumpyRandomState::Next32() {
  if (pos_ >= kN) Generate();
  std::uint32_t y = key_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

std::uint64_t NumpyRandomState::Next64() {
  const std::uint64_t hi = Next32();
  return (hi << 32) | Next32();
}

double NumpyRandomState::RandomDouble() {
  const std::uint32_t a = Next32() >> 5;
  const std::uint32_t b = Next32() >> 6;
  return (static_cast<double>(a) * 67108864.0 + static_cast<double>(b)) / 9007199254740992.0;
}

std::int64_t NumpyRandomState::RandInt(std::int64_t low, std::int64_t high) {
  const auto range = static_cast<std::uint64_t>(high - low - 1);
  if (range == 0) return low;
  std::uint64_t mask = range;
  for (int shift = 1; shift < 64; shift *= 2) mask |= mask >> shift;
  std::uint64_t value = 0;
  if (range <= 0xffffffffULL) {
    const auto mask32 = static_cast<std::uint32_t>(mask);
    while ((value = Next32() & mask32) > range) {
    }
  } else {
    while ((value = Next64() & mask) > range) {
    }
  }
  return low + static_cast<std::int64_t>(value);
}

std::vector<std::int64_t> NumpyRandomState::RandInt(std::int64_t low, std::int64_t high, std::size_t n) {
  std::vector<std::int64_t> out(n);
  for (auto& v : out) v = RandInt(low, high);
  return out;
}

double NumpyRandomState::StandardExponential() {
  return -std::log(1.0 - RandomDouble());
}

double NumpyRandomState::Gauss() {
  if (has_gauss_) {
    has_gauss_ = false;
    return gauss_;
  }
  double x1 = 0.0, x2 = 0.0, r2 = 0.0;
  do {
    x1 = 2.0 * RandomDouble() - 1.0;
    x2 = 2.0 * RandomDouble() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

double NumpyRandomState::Gamma(double shape, double scale) {
  if (shape == 1.0) return scale * StandardExponential();
  if (shape == 0.0) return 0.0;
  if (shape < 1.0) {
    for (;;) {
      const double u = RandomDouble();
      const double v = StandardExponential();
      if (u <= 1.0 - shape) {
        const double x = std::pow(u, 1.0 / shape);
        if (x <= v) return scale * x;
      } else {
        const double y = -std::log((1.0 - u) / shape);
        const double x = std::pow(1.0 - shape + shape * y, 1.0 / shape);
        if (x <= v + y) return scale * x;
      }
    }
  }
  const double b = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * b);
  for (;;) {
    double x = 0.0, v = 0.0;
    do {
      x = Gauss();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = RandomDouble();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return scale * (b * v);
    if (std::log(u) < 0.5 * x * x + b * (1.0 - v + std::log(v))) return scale * (b * v);
  }
}

std::array<std::uint32_t, 4> NumpyRandomState::FirstStateWords() const {
  return {key_[0], key_[1], key_[2], key_[3]};
}

}  // namespace infermark
