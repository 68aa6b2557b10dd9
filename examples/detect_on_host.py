"""A torchvision detector exported whole (post-processing included) to one NNAPI .pte, run on the host
NNAPI driver, its detections compared with eager torchvision's and drawn on the image.

    python examples/detect_on_host.py                                  # SSDlite on a drawn test image
    python examples/detect_on_host.py --image photo.jpg --weights ssdlite.pth -o ssdlite.pte
    python examples/detect_on_host.py --model fasterrcnn_mobilenet_v3_large_320_fpn
    python examples/detect_on_host.py --dynamic-size 64 640 -o ssdlite.pte   # any image size (a phone's)

Without ``--weights`` the model has random weights of a fixed seed (this example downloads nothing),
so its boxes mean nothing; with a state dict of trained weights (e.g. torchvision's, saved with
``torch.save(model.state_dict(), path)``) they are real detections. The same .pte runs on a phone
(examples/android): its outputs are ``boxes [D, 4]``, ``scores [D]``, ``labels [D]`` and ``count``, the
first ``count`` rows being the detections (docs/detection.md).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import torch
import torchvision
from PIL import Image, ImageDraw
from torchvision.transforms.functional import pil_to_tensor

from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime import load_method
from executorch_nnapi.tools.detection import detection_difference, detections_of, export_detector
from executorch_nnapi.tools.detection_models import random_detector


def test_image(width: int, height: int) -> Image.Image:
    """A picture of a few coloured shapes on a smooth background, for a run without ``--image`` (flat
    colour alone would give many anchors the same score, whose order is no one's to decide)."""
    y, x = torch.meshgrid(torch.arange(height, dtype=torch.float32), torch.arange(width, dtype=torch.float32),
                          indexing="ij")
    waves = torch.stack([torch.sin(x / 23 + y / 41), torch.sin(y / 19 - x / 53), torch.cos((x + y) / 31)], dim=-1)
    picture = Image.fromarray((150 + 50 * waves).to(torch.uint8).numpy(), "RGB")
    draw = ImageDraw.Draw(picture)
    draw.rectangle([width // 10, height // 5, width // 2, height * 4 // 5], fill=(180, 40, 40))
    draw.ellipse([width // 2, height // 4, width * 9 // 10, height * 3 // 4], fill=(40, 140, 60))
    draw.rectangle([width * 3 // 5, height // 10, width * 4 // 5, height // 4], fill=(30, 60, 170))
    return picture


def drawn(picture: Image.Image, detections: dict[str, torch.Tensor], shown: int, names: list[str]) -> Image.Image:
    """``picture`` with the best ``shown`` boxes, their class names and scores."""
    result = picture.copy()
    draw = ImageDraw.Draw(result)
    for box, label, score in list(zip(detections["boxes"], detections["labels"], detections["scores"]))[:shown]:
        x1, y1, x2, y2 = box.tolist()
        draw.rectangle([x1, y1, x2, y2], outline=(255, 220, 0), width=2)
        name = names[int(label)] if 0 <= int(label) < len(names) else str(int(label))
        draw.text((x1 + 2, y1 + 1), f"{name} {float(score):.2f}", fill=(255, 220, 0))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="ssdlite320_mobilenet_v3_large",
                        choices=["ssdlite320_mobilenet_v3_large", "fasterrcnn_mobilenet_v3_large_320_fpn"])
    parser.add_argument("--image", type=pathlib.Path, help="an image file (default: a drawn test image)")
    parser.add_argument("--weights", type=pathlib.Path, help="a state dict of the model (default: random weights)")
    parser.add_argument("--size", type=int, default=320, help="the test image's width and height without --image")
    parser.add_argument("-o", "--output", type=pathlib.Path, default=pathlib.Path("detector.pte"))
    parser.add_argument("--picture", type=pathlib.Path, default=pathlib.Path("detections.png"),
                        help="where to write the image with its boxes")
    parser.add_argument("--shown", type=int, default=10, help="how many of the best detections to draw")
    parser.add_argument("--dynamic-size", type=int, nargs=2, metavar=("MIN", "MAX"),
                        help="export for any image height and width in [MIN, MAX] (default: the image's size only)")
    args = parser.parse_args()

    model = random_detector(args.model, seed=1)
    if args.weights is not None:
        model.load_state_dict(torch.load(args.weights, map_location="cpu"))
    picture = Image.open(args.image).convert("RGB") if args.image else test_image(args.size, args.size)
    image = (pil_to_tensor(picture).to(torch.float32) / 255).contiguous()  # [3, H, W] in [0, 1], as torchvision takes

    program = export_detector(model, image, dynamic_size=tuple(args.dynamic_size) if args.dynamic_size else None)
    edge = to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner()])
    delegates = sum(1 for n in edge.exported_program().graph_module.graph.nodes
                    if n.op == "call_function" and "call_delegate" in str(n.target))
    args.output.write_bytes(edge.to_executorch().buffer)
    print(f"wrote {args.output} ({args.output.stat().st_size / 1e6:.1f} MB): {delegates} NNAPI subgraph(s)")

    selected = load_method(str(args.output))
    print(f"running '{selected.name}' ({selected.reason})")
    got = detections_of(selected.execute([image]))
    with torch.no_grad():
        want = model([image])[0]
    print(f"{len(got['labels'])} detection(s); eager torchvision: {len(want['labels'])}")
    if len(got["labels"]) == len(want["labels"]) and len(want["labels"]):
        print(f"largest differences: scores {(got['scores'] - want['scores']).abs().max():.1e}, boxes "
              f"{(got['boxes'] - want['boxes']).abs().max() / want['boxes'].abs().max():.1e} of the largest coordinate")
    # float32 differences of NNAPI's convolutions (~1e-5 of the features after 17 MobileNet blocks) reach
    # the scores through the classifier; tests/models/test_detectors.py holds 1e-5 on random images.
    difference = detection_difference(got, want, box_tolerance=1e-3, score_tolerance=1e-3)
    print(f"the .pte's detections differ from eager torchvision: {difference}" if difference else
          "the .pte's detections match eager torchvision (same labels in the same order, within 1e-3)")
    # COCO's class names, from the metadata of torchvision's weights (nothing is downloaded).
    names = torchvision.models.get_model_weights(args.model).DEFAULT.meta["categories"]
    drawn(picture, got, args.shown, names).save(args.picture)
    print(f"drew the best {min(args.shown, len(got['labels']))} on {args.picture}")
    return 1 if difference else 0


if __name__ == "__main__":
    sys.exit(main())
