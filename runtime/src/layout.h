// Dimension permutation at the delegate boundary (NCHW ExecuTorch tensors
// <-> NHWC NNAPI operands), done while copying instead of by a TRANSPOSE
// operation: API 27 has no TRANSPOSE, and a copy is needed anyway.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace executorch_nnapi {

/// Copies the contiguous tensor `src` of shape `src_dims` into `dst` so that
/// dimension i of `dst` is dimension `perm[i]` of `src`. Elements are
/// `element_size` bytes; `dst` must hold as many bytes as `src`.
void permute_copy(const uint8_t* src, const std::vector<int64_t>& src_dims,
                  const std::vector<uint8_t>& perm, size_t element_size,
                  uint8_t* dst);

/// The inverse permutation of `perm`.
std::vector<uint8_t> inverse_permutation(const std::vector<uint8_t>& perm);

}  // namespace executorch_nnapi
