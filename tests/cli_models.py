"""Small models for the CLI tests (imported as ``cli_models:<name>``)."""

import torch


def small_cnn() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU6(),
        torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 8, 3, groups=8, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 4),
    ).eval()


def with_cumsum() -> torch.nn.Module:
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 1)

        def forward(self, x):
            return torch.cumsum(self.conv(x), dim=3)

    return M().eval()


def two_max_pools() -> torch.nn.Module:
    """Two 2x2 max pools before a global pool: torch.export needs H // 4 != 1 (a 1x1 map would
    be specialized), so H in [2, 64] fails; torch suggests min=4, which still fails; [8, 64] works."""
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.MaxPool2d(2),
        torch.nn.BatchNorm2d(4), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
    ).eval()
