// permute_copy (runtime/src/layout.cpp: the NCHW <-> NHWC copies at the delegate boundary)
// against a per-element reference on random shapes, permutations, element sizes and
// (mis)alignments; prints the first failing case and exits 1 on a mismatch. Built with the
// sanitizers (tests/runtime/test_layout.py).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "layout.h"

using executorch_nnapi::permute_copy;

int main() {
  std::mt19937 rng(1234);
  const size_t sizes[] = {1, 2, 3, 4, 8};
  for (int trial = 0; trial < 4000; ++trial) {
    const size_t rank = rng() % 6;
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = (rng() % 4 == 0) ? 1 : 1 + rng() % 5;
    if (trial % 97 == 0 && rank > 0) dims[rng() % rank] = 0;
    std::vector<uint8_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const size_t element = sizes[rng() % 5], shift = rng() % 2;
    size_t count = 1;
    for (auto d : dims) count *= static_cast<size_t>(d);
    std::vector<uint8_t> src(count * element + 16), dst(count * element + 16, 0xAB), want(count * element + 16, 0xAB);
    for (auto& b : src) b = static_cast<uint8_t>(rng());
    // Reference: each dst element's multi-index mapped back to its src offset.
    std::vector<int64_t> dst_dims(rank), stride(rank, 1);
    for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * dims[d];
    for (size_t i = 0; i < rank; ++i) dst_dims[i] = dims[perm[i]];
    for (size_t flat = 0; flat < count; ++flat) {
      size_t rest = flat, offset = 0;
      for (size_t i = rank; i-- > 0;) {
        offset += (rest % dst_dims[i]) * stride[perm[i]];
        rest /= dst_dims[i];
      }
      std::memcpy(&want[shift + flat * element], &src[shift + offset * element], element);
    }
    permute_copy(src.data() + shift, dims, perm, element, dst.data() + shift);
    if (dst != want) {
      std::printf("mismatch: rank %zu element %zu shift %zu dims", rank, element, shift);
      for (auto d : dims) std::printf(" %lld", static_cast<long long>(d));
      std::printf(" perm");
      for (auto p : perm) std::printf(" %d", p);
      std::printf("\n");
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
