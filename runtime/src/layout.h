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

/// A tensor's physical dimension order (outermost first, as logical dims):
/// `order`, or the identity of rank `rank` when `order` is empty.
std::vector<uint8_t> full_order(const std::vector<uint8_t>& order, size_t rank);

/// The `perm` for permute_copy that takes a tensor stored in physical order
/// `from` to physical order `to` (both full orders of the same rank).
std::vector<uint8_t> order_change(const std::vector<uint8_t>& from,
                                  const std::vector<uint8_t>& to);

/// The physical sizes of a tensor of logical sizes `logical` stored in `order`.
std::vector<int64_t> physical_dims(const std::vector<int64_t>& logical,
                                   const std::vector<uint8_t>& order);

/// Copies `count` int64 values into int32 `dst` (NNAPI has no 64-bit
/// integers). Returns false, with the first offending element's index and
/// value in *bad_index / *bad_value, if a value is outside int32's range;
/// `dst` is then partly written.
bool narrow_int64_to_int32(const int64_t* src, size_t count, int32_t* dst,
                           size_t* bad_index, int64_t* bad_value);

/// Copies `count` int32 values into int64 `dst`.
void widen_int32_to_int64(const int32_t* src, size_t count, int64_t* dst);

}  // namespace executorch_nnapi
