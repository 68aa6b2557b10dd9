#include "layout.h"

#include <cstring>
#include <limits>

namespace executorch_nnapi {

std::vector<uint8_t> inverse_permutation(const std::vector<uint8_t>& perm) {
  std::vector<uint8_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    inverse[perm[i]] = static_cast<uint8_t>(i);
  }
  return inverse;
}

std::vector<uint8_t> full_order(const std::vector<uint8_t>& order, size_t rank) {
  if (!order.empty()) {
    return order;
  }
  std::vector<uint8_t> identity(rank);
  for (size_t d = 0; d < rank; ++d) {
    identity[d] = static_cast<uint8_t>(d);
  }
  return identity;
}

std::vector<uint8_t> order_change(const std::vector<uint8_t>& from,
                                  const std::vector<uint8_t>& to) {
  // Physical dim i of the result holds logical dim to[i], which sits at
  // physical position inverse(from)[to[i]] of the source.
  const std::vector<uint8_t> position = inverse_permutation(from);
  std::vector<uint8_t> perm(to.size());
  for (size_t i = 0; i < to.size(); ++i) {
    perm[i] = position[to[i]];
  }
  return perm;
}

std::vector<int64_t> physical_dims(const std::vector<int64_t>& logical,
                                   const std::vector<uint8_t>& order) {
  std::vector<int64_t> dims(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    dims[i] = logical[order[i]];
  }
  return dims;
}

void permute_copy(const uint8_t* src, const std::vector<int64_t>& src_dims,
                  const std::vector<uint8_t>& perm, size_t element_size,
                  uint8_t* dst) {
  const size_t rank = src_dims.size();
  if (rank == 0) {
    std::memcpy(dst, src, element_size);
    return;
  }
  // Strides of src, in elements; then the dst walk in row-major order.
  std::vector<int64_t> src_strides(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) {
    src_strides[d - 1] = src_strides[d] * src_dims[d];
  }
  std::vector<int64_t> dst_dims(rank), step(rank);
  int64_t total = 1;
  for (size_t i = 0; i < rank; ++i) {
    dst_dims[i] = src_dims[perm[i]];
    step[i] = src_strides[perm[i]];
    total *= dst_dims[i];
  }
  if (total == 0) {
    return;
  }
  // Odometer over dst indices; the innermost dimension is a strided gather.
  std::vector<int64_t> index(rank, 0);
  const int64_t inner = dst_dims[rank - 1];
  const int64_t inner_step = step[rank - 1];
  int64_t src_offset = 0;
  uint8_t* out = dst;
  for (int64_t done = 0; done < total; done += inner) {
    const uint8_t* in = src + src_offset * static_cast<int64_t>(element_size);
    if (element_size == 4) {
      const uint32_t* in32 = reinterpret_cast<const uint32_t*>(in);
      uint32_t* out32 = reinterpret_cast<uint32_t*>(out);
      for (int64_t k = 0; k < inner; ++k) {
        out32[k] = in32[k * inner_step];
      }
    } else {
      for (int64_t k = 0; k < inner; ++k) {
        std::memcpy(out + k * element_size, in + k * inner_step * element_size,
                    element_size);
      }
    }
    out += inner * static_cast<int64_t>(element_size);
    // Advance the outer dimensions.
    for (size_t d = rank - 1; d-- > 0;) {
      src_offset += step[d];
      if (++index[d] < dst_dims[d]) {
        break;
      }
      src_offset -= step[d] * dst_dims[d];
      index[d] = 0;
    }
  }
}

bool narrow_int64_to_int32(const int64_t* src, size_t count, int32_t* dst,
                           size_t* bad_index, int64_t* bad_value) {
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (size_t i = 0; i < count; ++i) {
    if (src[i] < kMin || src[i] > kMax) {
      *bad_index = i;
      *bad_value = src[i];
      return false;
    }
    dst[i] = static_cast<int32_t>(src[i]);
  }
  return true;
}

void widen_int32_to_int64(const int32_t* src, size_t count, int64_t* dst) {
  for (size_t i = 0; i < count; ++i) {
    dst[i] = src[i];
  }
}

}  // namespace executorch_nnapi
