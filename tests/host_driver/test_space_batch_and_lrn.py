"""SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and LOCAL_RESPONSE_NORMALIZATION in the host driver, through
the C API: the block moves against an explicit loop over TensorFlow's index rule, the round trip,
the quantized padding value, LRN against PyTorch's local_response_norm (alpha / size, an odd
window), and the refusals (level 27, wrong block / padding shapes, a rank-3 LRN below 29)."""

from __future__ import annotations

import pytest
import torch

from nnapi_client import BAD_DATA, QA8, Model, host_driver_at, last_error


def _s2b_reference(x: torch.Tensor, block, pads, fill=0.0) -> torch.Tensor:
    """out[(i * bw + j) * N + n, h, w, c] = padded[n, h * bh + i, w * bw + j, c] (NHWC)."""
    bh, bw = block
    x = torch.nn.functional.pad(x, (0, 0, pads[2], pads[3], pads[0], pads[1]), value=fill)
    n, hp, wp, ch = x.shape
    out = torch.empty(n * bh * bw, hp // bh, wp // bw, ch, dtype=x.dtype)
    for i in range(bh):
        for j in range(bw):
            for b in range(n):
                out[(i * bw + j) * n + b] = x[b, i::bh, j::bw]
    return out


def _space_to_batch(lib, x, block, pads, type_=None, **q):
    m = Model(lib)
    n, h, w, c = x.shape
    bh, bw = block
    out_shape = [n * bh * bw, (h + pads[0] + pads[1]) // bh, (w + pads[2] + pads[3]) // bw, c]
    kw = dict(type_=type_, **q) if type_ else {}
    inp, out = m.tensor(list(x.shape), **kw), m.tensor(out_shape, **kw)
    m.op("SPACE_TO_BATCH_ND", [inp, m.const(torch.tensor(block, dtype=torch.int32)),
                               m.const(torch.tensor(pads, dtype=torch.int32).reshape(2, 2))], [out])
    m.io([inp], [out])
    return m.run([x], [out_shape], out_dtype=x.dtype)[0]


def _batch_to_space(lib, x, block):
    m = Model(lib)
    b, h, w, c = x.shape
    out_shape = [b // (block[0] * block[1]), h * block[0], w * block[1], c]
    inp, out = m.tensor(list(x.shape)), m.tensor(out_shape)
    m.op("BATCH_TO_SPACE_ND", [inp, m.const(torch.tensor(block, dtype=torch.int32))], [out])
    m.io([inp], [out])
    return m.run([x], [out_shape])[0]


@pytest.mark.parametrize("block,pads,hw", [((2, 2), (0, 0, 0, 0), (4, 6)), ((2, 3), (1, 1, 0, 2), (4, 7)),
                                            ((3, 1), (2, 1, 0, 0), (3, 5))])
def test_space_to_batch_follows_tensorflows_index_rule_and_batch_to_space_undoes_it(lib, driver, block, pads, hw):
    x = torch.randn(2, *hw, 3, generator=torch.Generator().manual_seed(0))
    moved = _space_to_batch(lib, x, block, pads)
    assert torch.equal(moved, _s2b_reference(x, block, pads))
    back = _batch_to_space(lib, moved, block)
    h, w = x.shape[1] + pads[0] + pads[1], x.shape[2] + pads[2] + pads[3]
    assert back.shape[1:3] == (h, w)
    assert torch.equal(back[:, pads[0]:pads[0] + x.shape[1], pads[2]:pads[2] + x.shape[2]], x)


def test_quantized_space_to_batch_pads_with_the_zero_point(lib, driver):
    x = torch.randint(0, 256, (1, 2, 2, 1), dtype=torch.uint8)
    out = _space_to_batch(lib, x, (2, 2), (1, 1, 1, 1), type_=QA8, scale=0.5, zp=37)
    assert torch.equal(out, _s2b_reference(x, (2, 2), (1, 1, 1, 1), fill=37))
    assert (out == 37).sum() == 12


@pytest.mark.parametrize("size,alpha,beta,k", [(5, 1e-4, 0.75, 1.0), (3, 0.5, 1.0, 2.0), (1, 1.0, 0.5, 0.5)])
def test_local_response_normalization_is_pytorchs_with_alpha_over_size(lib, driver, size, alpha, beta, k):
    x = torch.randn(2, 6, 4, 5, generator=torch.Generator().manual_seed(1))  # NCHW, channels = 6
    nhwc = x.permute(0, 2, 3, 1).contiguous()
    m = Model(lib)
    inp, out = m.tensor(list(nhwc.shape)), m.tensor(list(nhwc.shape))
    m.op("LOCAL_RESPONSE_NORMALIZATION", [inp, m.i32((size - 1) // 2), m.f32(k), m.f32(alpha / size), m.f32(beta)],
         [out])
    m.io([inp], [out])
    (res,) = m.run([nhwc], [list(nhwc.shape)])
    expected = torch.nn.functional.local_response_norm(x, size, alpha, beta, k).permute(0, 2, 3, 1)
    torch.testing.assert_close(res, expected, rtol=1e-5, atol=1e-6)


def test_refusals(lib, driver):
    m = Model(lib)
    inp, out = m.tensor([1, 4, 4, 1]), m.tensor([4, 2, 2, 1])
    m.op("SPACE_TO_BATCH_ND", [inp, m.const(torch.tensor([2, 2], dtype=torch.int32)),
                               m.const(torch.tensor([0, 0, 0], dtype=torch.int32))], [out])
    m.io([inp], [out])
    assert m.finish(expect=BAD_DATA) == BAD_DATA
    assert "paddings" in last_error(lib)
    m = Model(lib)
    inp, out = m.tensor([3, 2, 2, 1]), m.tensor([1, 4, 4, 1])
    m.op("BATCH_TO_SPACE_ND", [inp, m.const(torch.tensor([2, 2], dtype=torch.int32))], [out])
    m.io([inp], [out])
    assert m.finish(expect=BAD_DATA) == BAD_DATA
    assert "divisible" in last_error(lib)
    m = Model(lib)
    inp, out = m.tensor([2, 3, 4]), m.tensor([2, 3, 4])
    m.op("LOCAL_RESPONSE_NORMALIZATION", [inp, m.i32(1), m.f32(1.0), m.f32(1.0), m.f32(0.5)], [out])
    with host_driver_at(28):
        m2 = Model(lib)
        i2, o2 = m2.tensor([2, 3, 4]), m2.tensor([2, 3, 4])
        m2.op("LOCAL_RESPONSE_NORMALIZATION", [i2, m2.i32(1), m2.f32(1.0), m2.f32(1.0), m2.f32(0.5)], [o2],
              expect=BAD_DATA)
        assert "rank 3" in last_error(lib)
    with host_driver_at(27):
        m3 = Model(lib)
        i3, o3 = m3.tensor([1, 2, 2, 1]), m3.tensor([4, 1, 1, 1])
        m3.op("BATCH_TO_SPACE_ND", [m3.tensor([4, 1, 1, 1]), m3.const(torch.tensor([2, 2], dtype=torch.int32))],
              [i3], expect=BAD_DATA)
        assert "feature level" in last_error(lib)
