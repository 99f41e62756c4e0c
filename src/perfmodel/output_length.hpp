// When a request without `ignore_eos` meets its end-of-sequence token: a seeded model of output
// length. The length is drawn from an exponential distribution with the configured mean (rounded
// up, so at least one token), then held within [max(min_tokens, 1), max_tokens]. The draw depends
// only on the seed (the request's `seed`, else the server's seed and the request's arrival
// number), so a run is reproducible. With `ignore_eos` the output is exactly max_tokens.
#pragma once

#include <cstdint>

namespace infermark::perfmodel {

/// Output tokens a request will produce.
/// `mean_tokens` <= 0 disables EOS (every request runs to max_tokens).
std::int64_t DrawOutputLength(std::uint64_t seed, double mean_tokens, std::int64_t min_tokens, std::int64_t max_tokens,
                              bool ignore_eos);

}  // namespace infermark::perfmodel
