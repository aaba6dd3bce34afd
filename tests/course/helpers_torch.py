"""Shared helpers of the torch tests (test_hessian.py, test_attention.py); not a test module."""

from __future__ import annotations

import torch

F64 = torch.float64


def rand(*shape: int, seed: int = 0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=gen, dtype=F64)


def fd_cross_hessian(f, x_m, x_n, h=1e-4):
    """Central finite differences for d^2 f / dx_m[a] dx_n[b] (independent of autograd)."""
    out = torch.empty(x_m.numel(), x_n.numel(), dtype=F64)
    with torch.no_grad():
        for a in range(x_m.numel()):
            for b in range(x_n.numel()):
                ea = torch.zeros_like(x_m)
                ea[a] = h
                eb = torch.zeros_like(x_n)
                eb[b] = h
                out[a, b] = (
                    f(x_m + ea, x_n + eb)
                    - f(x_m + ea, x_n - eb)
                    - f(x_m - ea, x_n + eb)
                    + f(x_m - ea, x_n - eb)
                ) / (4 * h * h)
    return out


def make_layer(
    kind: str, seed: int, d: int = 8, activation: str = "relu"
) -> torch.nn.Module:
    """A float64 layer in eval mode: attention, a Transformer encoder layer, or a linear map."""
    torch.manual_seed(seed)
    if kind == "mha":
        layer = torch.nn.MultiheadAttention(d, 2, dtype=F64)
    elif kind == "encoder":
        layer = torch.nn.TransformerEncoderLayer(
            d, 2, 16, dropout=0.0, activation=activation, dtype=F64
        )
    else:
        layer = torch.nn.Linear(d, d, dtype=F64)
    return layer.eval()


def nonlinear(x_m, x_n):
    return (
        torch.tanh(x_m @ x_n)
        + (torch.sin(x_m) * x_n**2).sum()
        + torch.exp(0.3 * x_m[0] * x_n[-1])
    )
