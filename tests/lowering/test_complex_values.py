"""Complex values as pairs of real tensors (lowering/passes/complex_values.py): Llama 4's rotary
embedding (``torch.polar`` frequencies, ``view_as_complex`` of the head pairs, a complex product,
``view_as_real``) stops ``to_edge`` for every backend; rewritten, it is one NNAPI subgraph equal
to eager."""

from __future__ import annotations

import torch

from op_harness import check_delegated_and_matches
from op_harness import seeded_randn as _randn
from executorch_nnapi.lowering.passes.complex_values import rewrite_complex_values


class ComplexRotary(torch.nn.Module):
    """Llama 4's apply_rotary_emb: q and k as complex pairs times polar frequencies."""

    def __init__(self, heads: int = 2, head_dim: int = 8) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, head_dim
        self.q = torch.nn.Linear(16, heads * head_dim)
        self.k = torch.nn.Linear(16, heads * head_dim)
        self.register_buffer("inv_freq", 1.0 / (500.0 ** (torch.arange(0, head_dim, 2).float() / head_dim)))

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        freqs = positions[:, :, None].float() * self.inv_freq[None, None, :]           # [b, s, d/2]
        freqs_cis = torch.polar(torch.ones_like(freqs), freqs) * 1.0
        out = []
        for proj in (self.q, self.k):
            h = proj(x).view(b, s, self.heads, self.head_dim)
            h_ = torch.view_as_complex(h.float().reshape(b, s, self.heads, -1, 2))
            out.append(torch.view_as_real(h_ * freqs_cis[:, :, None, :]).flatten(3))
        q, k = out
        return torch.softmax(q.transpose(1, 2) @ k.transpose(1, 2).transpose(-1, -2), dim=-1)


def test_complex_rotary_embedding_in_one_subgraph():
    inputs = (_randn(1, 6, 16), torch.arange(6).unsqueeze(0))
    lowered = check_delegated_and_matches(ComplexRotary(), inputs)
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []


class ComplexArithmetic(torch.nn.Module):
    """Sums, differences, conjugates and real factors of complex values, returned as real pairs."""

    def forward(self, a: torch.Tensor, b: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        za, zb = torch.view_as_complex(a), torch.view_as_complex(b)
        z = (za + zb) * r - zb.conj() * za + 2.0 * za - (za - 0.5)
        return torch.view_as_real(z.permute(1, 0).unsqueeze(0)).flatten(2)


def test_complex_sums_conjugates_and_real_factors_in_one_subgraph():
    inputs = (_randn(5, 3, 2), _randn(5, 3, 2, seed=1), _randn(5, 3, seed=2))
    lowered = check_delegated_and_matches(ComplexArithmetic(), inputs)
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []


def test_a_complex_op_without_a_real_form_leaves_the_program_as_it_was():
    """abs of a complex value is not in the list: nothing is rewritten (all or nothing)."""
    class Magnitude(torch.nn.Module):
        def forward(self, a: torch.Tensor) -> torch.Tensor:
            z = torch.view_as_complex(a) * 2.0
            return z.abs() + torch.view_as_real(z).sum(-1)

    program = torch.export.export(Magnitude(), (_randn(4, 3, 2),)).run_decompositions({})
    before = [n.target for n in program.graph.nodes]
    assert rewrite_complex_values(program) == 0
    assert [n.target for n in program.graph.nodes] == before


class FourierMixing(torch.nn.Module):
    """FNet's token mixing: the real part of the 2-D DFT over the sequence and the hidden dims,
    and an orthonormal DFT of a complex value along its first dim."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(12, 12)

    def forward(self, x: torch.Tensor, pairs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mixed = torch.fft.fftn(self.proj(x), dim=(1, 2)).real
        spectrum = torch.fft.fftn(torch.view_as_complex(pairs), dim=(0,), norm="ortho")
        return torch.layer_norm(x + mixed, (12,)), torch.view_as_real(spectrum).flatten(1)


def test_dft_as_products_with_cosine_and_sine_matrices_in_one_subgraph():
    """fft_fftn is not a core ATen op (to_edge stops for every backend); as DFT matrix products
    it is one subgraph, within float32 rounding of torch's FFT."""
    inputs = (_randn(2, 10, 12), _randn(6, 5, 2, seed=1))
    lowered = check_delegated_and_matches(FourierMixing(), inputs, tolerance=1e-5)
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []
