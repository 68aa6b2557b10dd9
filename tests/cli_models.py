"""Small models for the CLI tests (imported as ``cli_models:<name>``)."""

import torch


def small_cnn() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU6(),
        torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 8, 3, groups=8, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 4),
    ).eval()


def with_erf() -> torch.nn.Module:
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 1)

        def forward(self, x):
            return torch.erf(self.conv(x))

    return M().eval()


def two_max_pools() -> torch.nn.Module:
    """Two 2x2 max pools before a global pool: torch.export needs H // 4 != 1 (a 1x1 map would
    be specialized), so H in [2, 64] fails; torch suggests min=4, which still fails; [8, 64] works."""
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.MaxPool2d(2),
        torch.nn.BatchNorm2d(4), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
    ).eval()


def conv_exp_conv() -> torch.nn.Module:
    """A convolution, an exp (NNAPI's EXP takes float only, so the quantizer leaves it float)
    and a convolution: quantized, the partition runs EXP in float between two 8-bit convs."""
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.Conv2d(4, 4, 1)

        def forward(self, x):
            return self.conv2(torch.exp(self.conv1(x) * 0.25))

    torch.manual_seed(0)
    return M().eval()


def calibration_inputs():
    """Eight 1x3x16x16 inputs for --calibration cli_models:calibration_inputs (a generator of tuples)."""
    generator = torch.Generator().manual_seed(3)
    for _ in range(8):
        yield (torch.rand(1, 3, 16, 16, generator=generator) * 2 - 1,)


def cnn_with_cpu_fallback() -> torch.nn.Module:
    """A small CNN whose erf (NNAPI has none) stays on the CPU between two NNAPI subgraphs,
    with a residual branch in the second; the delegation picture's example (docs/graph_page.md)."""
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU())
            self.branch = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 3, padding=1, groups=8), torch.nn.ReLU6(),
                                              torch.nn.Conv2d(8, 8, 1))
            self.head = torch.nn.Linear(8, 4)

        def forward(self, x):
            y = torch.erf(self.stem(x)) * 0.1
            y = y + self.branch(y)
            return self.head(torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))

    torch.manual_seed(0)
    return M().eval()
