"""Calibration inputs for post-training quantization, and the PT2E quantize step.

``executorch-nnapi export --quantize --calibration SPEC`` (tools/cli.py) and
bench/zoo_benchmark.py use these. A calibration set is a list of samples, each the
positional inputs of one forward call. They come from

- a directory (:func:`from_directory`): every ``.pt`` / ``.pth`` file holds one sample,
  a tensor or a tuple / list of tensors saved with ``torch.save``; every ``.png`` /
  ``.jpg`` / ``.jpeg`` file is an image, read with torchvision.io, resized to the
  input's H x W, scaled to [0, 1] and, with 3 channels, normalized with the ImageNet
  mean and std (what torchvision's classification models expect; save ``.pt`` tensors
  for any other preprocessing). Files are taken in sorted name order; a tensor one rank
  short of the input gets a batch dim of 1;
- a Python iterable of samples (:func:`from_iterable`, e.g. a ``module:fn`` that
  returns or yields input tuples);
- random normal inputs (:func:`random_inputs`): only on request, since the scales
  they give have nothing to do with real data.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any, Iterable, Sequence

import torch
from torch.fx import GraphModule

TENSOR_SUFFIXES = (".pt", ".pth")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
RANDOM_WARNING = "calibrated on random inputs: accuracy is not meaningful"

Sample = tuple[torch.Tensor, ...]


class CalibrationError(ValueError):
    """A calibration set that cannot be used; the message names the file or sample."""


@dataclasses.dataclass
class Calibration:
    """Named samples (name, inputs) and where they came from."""

    samples: list[tuple[str, Sample]]
    description: str
    random: bool = False

    @property
    def inputs(self) -> list[Sample]:
        return [inputs for _, inputs in self.samples]


def random_inputs(shape: Sequence[int], count: int, seed: int = 0) -> Calibration:
    """``count`` standard-normal inputs of ``shape`` (seeded: the same set every run)."""
    if count <= 0:
        raise CalibrationError(f"random calibration needs at least one input (got {count})")
    generator = torch.Generator().manual_seed(seed)
    samples = [(f"random input {i}", (torch.randn(*shape, generator=generator),)) for i in range(count)]
    return Calibration(samples, f"{count} random normal inputs", random=True)


def _batched(t: torch.Tensor, shape: Sequence[int]) -> torch.Tensor:
    return t.unsqueeze(0) if t.dim() == len(shape) - 1 else t


def _as_sample(value: Any, name: str, shape: Sequence[int]) -> Sample:
    """A tensor or a tuple / list of tensors as a sample; anything else is an error naming ``name``."""
    items = (value,) if isinstance(value, torch.Tensor) else value
    if not isinstance(items, (tuple, list)) or not items or not all(isinstance(t, torch.Tensor) for t in items):
        raise CalibrationError(f"{name}: expected a tensor or a tuple of tensors, got {type(value).__name__}")
    return tuple(_batched(t, shape) if len(items) == 1 else t for t in items)


def _read_image(path: pathlib.Path, shape: Sequence[int]) -> torch.Tensor:
    from torchvision.io import ImageReadMode, decode_image, read_file
    from torchvision.transforms.v2.functional import resize

    if len(shape) != 4 or shape[1] not in (1, 3):
        raise CalibrationError(f"{path}: images calibrate an input of shape N,1,H,W or N,3,H,W "
                               f"(--input-shape is {list(shape)}); save .pt tensors instead")
    mode = ImageReadMode.RGB if shape[1] == 3 else ImageReadMode.GRAY
    try:
        image = decode_image(read_file(str(path)), mode=mode)
    except RuntimeError as e:
        raise CalibrationError(f"{path}: cannot decode the image: {e}") from None
    image = resize(image, list(shape[2:]), antialias=True).float() / 255.0
    if shape[1] == 3:
        image = (image - torch.tensor(IMAGENET_MEAN)[:, None, None]) / torch.tensor(IMAGENET_STD)[:, None, None]
    return image.unsqueeze(0).expand(shape[0], -1, -1, -1).contiguous()


def from_directory(directory: str, shape: Sequence[int]) -> Calibration:
    """The samples of ``directory``'s .pt / .pth tensors and images (see the module doc)."""
    root = pathlib.Path(directory)
    files = sorted(p for p in root.iterdir() if p.suffix.lower() in TENSOR_SUFFIXES + IMAGE_SUFFIXES)
    if not files:
        raise CalibrationError(f"{directory} holds no calibration file ({', '.join(TENSOR_SUFFIXES + IMAGE_SUFFIXES)})")
    samples = []
    for path in files:
        if path.suffix.lower() in IMAGE_SUFFIXES:
            samples.append((path.name, (_read_image(path, shape),)))
            continue
        try:
            value = torch.load(path, weights_only=True)
        except Exception as e:  # noqa: BLE001 - any unreadable file is reported in one line
            raise CalibrationError(f"{path}: cannot load it with torch.load: {str(e).splitlines()[0]}") from None
        samples.append((path.name, _as_sample(value, str(path), shape)))
    kinds = sorted({p.suffix.lower() for p in files})
    return Calibration(samples, f"{len(samples)} file(s) ({', '.join(kinds)}) in {directory}")


def from_iterable(values: Iterable[Any], source: str, shape: Sequence[int]) -> Calibration:
    """The samples an iterable yields (each a tensor or a tuple of tensors)."""
    try:
        iterator = iter(values)
    except TypeError:
        raise CalibrationError(f"{source} gave a {type(values).__name__}, not an iterable of input tuples") from None
    samples = [(f"{source} sample {i}", _as_sample(v, f"{source} sample {i}", shape)) for i, v in enumerate(iterator)]
    if not samples:
        raise CalibrationError(f"{source} gave no calibration sample")
    return Calibration(samples, f"{len(samples)} sample(s) from {source}")


def check_single_input(calibration: Calibration, shape: Sequence[int], free_dims: Iterable[int] = ()) -> None:
    """Every sample is one tensor of ``shape`` (any size along ``free_dims``, the dynamic ones).

    Raises:
        CalibrationError: naming the first sample that is not.
    """
    free = set(free_dims)
    for name, inputs in calibration.samples:
        if len(inputs) != 1:
            raise CalibrationError(f"calibration input {name} holds {len(inputs)} tensors; the model takes one")
        got = list(inputs[0].shape)
        if len(got) != len(shape) or any(g != s for i, (g, s) in enumerate(zip(got, shape)) if i not in free):
            raise CalibrationError(f"calibration input {name} has shape {got}, the model's input is {list(shape)}"
                                   + (f" (dims {sorted(free)} dynamic)" if free else ""))


def quantize_program(program: torch.export.ExportedProgram, quantizer: Any, calibration: Calibration) -> GraphModule:
    """prepare_pt2e with ``quantizer``, one forward per calibration sample, convert_pt2e.

    Raises:
        CalibrationError: a sample the model does not run on (naming the sample).
    """
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    prepared = prepare_pt2e(program.module(), quantizer)
    with torch.no_grad():
        for name, inputs in calibration.samples:
            try:
                prepared(*inputs)
            except Exception as e:  # noqa: BLE001 - the user's data: reported in one line
                reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                shapes = [list(t.shape) for t in inputs]
                raise CalibrationError(f"calibration input {name} (shapes {shapes}): the model does not run "
                                       f"on it: {reason}") from None
    return convert_pt2e(prepared)


def sqnr(reference: torch.Tensor, actual: torch.Tensor) -> float:
    """Signal-to-quantization-noise ratio of ``actual`` against ``reference``, in dB."""
    noise = (reference.float() - actual.float()).pow(2).sum()
    if noise == 0:
        return float("inf")
    return 10 * torch.log10(reference.float().pow(2).sum() / noise).item()
