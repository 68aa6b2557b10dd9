"""The whole-model checks that `scripts/dev.sh test` leaves to `scripts/dev.sh test-long`.

The default suite must finish in under 20 minutes on 2 cores (the CI budget). These tests repeat,
at a larger size or on another model, what a test in the default suite already covers (named
beside each); together they take ~41 minutes of one core (`scripts/dev.sh test-long`: ~20 minutes
on 2). conftest.py marks each with ``pytest.mark.long``. Seconds: measured on the 2-core AVX2
machine in a whole-suite run. `scripts/dev.sh tier-coverage` measures what the default tier would
not run without them (scripts/tier_coverage.py). When the last 20 entries were added: none of
theirs; 50 lines of function bodies for the earlier ones (Mask R-CNN's mask branch, RetinaNet's
head, the 8-bit swin's padding, the API 27 hardswish of a whole 8-bit model: 22 of the 50, which
the per-op tests of tests/quantizer may run, as they were not in that measurement, cut short).
"""

from __future__ import annotations

# test node id -> (seconds, what covers it in the default suite)
LONG = {
    "models/test_transformer_models.py::test_transformer_model[swin_t_stage3_depth_2_dynamic_hw]":
        (217, "convnext_tiny_dynamic_hw (whole model, dynamic H/W) and test_ops_transformer's dynamic swin "
              "window chains"),
    "models/test_transformer_models.py::test_transformer_model[swin_t_224]": (33, "test_ops_transformer's swin window chains (static and dynamic)"),
    "models/test_transformer_models.py::test_transformer_model[vit_b_16]": (20, "vit_4_layers_224"),
    "models/test_cpu_capability.py::test_whole_model_8bit_checks_hold_under_another_capability":
        (115, "test_the_child_runs_under_the_other_capability; the per-op 8-bit tests under "
              "ATEN_CPU_CAPABILITY=avx2 by hand (docs/development.md)"),
    "models/test_quantized_models.py::test_as_close_to_convert_pt2e_as_xnnpack[mobilenet_v3_large-uint8-30]":
        (95, "test_model_quantized[mobilenet_v3_large-uint8] (the same lowering and run: structure, SQNR against "
             "convert_pt2e's) and its layer-by-layer replay (every layer within one step of convert_pt2e, "
             "differences only at rounding ties, the chained replay the host's result bit for bit); XNNPACK's "
             "lowering, the yardstick, is two thirds of the time"),
    "models/test_quantized_models.py::test_as_close_to_convert_pt2e_as_xnnpack[resnet18-uint8-30]":
        (40, "test_model_quantized[resnet18-uint8] and its layer-by-layer replay (as above)"),
    "models/test_quantized_models.py::test_as_close_to_convert_pt2e_as_xnnpack[resnet18-uint8-27]":
        (10, "test_model_before_api_29[resnet18] (SQNR against convert_pt2e's; the XNNPACK run shared with "
             "the API 30 check)"),
    "models/test_quantized_models.py::test_as_close_to_convert_pt2e_as_xnnpack[mobilenet_v3_large-int8-30]":
        (10, "the uint8 check (the XNNPACK run shared)"),
    "models/test_quantized_models.py::test_as_close_to_convert_pt2e_as_xnnpack[mobilenet_v2-uint8-30]":
        (20, "mobilenet_v3_large and resnet18 hold every operation of mobilenet_v2"),
    "models/test_quantized_models.py::test_as_close_to_convert_pt2e_as_xnnpack[mobilenet_v3_large-uint8-27]":
        (20, "test_model_before_api_29[mobilenet_v3_large] (also long) and the per-op tests of the decomposed "
             "hardswish"),
    "models/test_quantized_models.py::test_model_quantized[mobilenet_v3_large-int8]":
        (108, "mobilenet_v3_large-uint8 (int8 is the same arithmetic on codes offset by 128) and every "
              "8-bit op in int8 in tests/quantizer"),
    "models/test_quantized_models.py::test_layers_differ_from_convert_pt2e_only_at_rounding_ties"
    "[mobilenet_v3_large-int8]": (10, "the uint8 replay"),
    "models/test_quantized_models.py::test_model_quantized[mobilenet_v2-uint8]":
        (90, "mobilenet_v3_large and resnet18 hold every operation of mobilenet_v2"),
    "models/test_quantized_models.py::test_layers_differ_from_convert_pt2e_only_at_rounding_ties"
    "[mobilenet_v2-uint8]": (32, "the replays of mobilenet_v3_large and resnet18"),
    "models/test_quantized_models.py::test_model_before_api_29[mobilenet_v3_large]":
        (129, "resnet18 before API 29 (the whole model at API 27: CPU quantize, per-tensor weights); "
              "tests/quantizer's test_hard_activations_before_api_30 (hardswish as DEPTHWISE_CONV_2D + MUL "
              "at API 27, 28 and 29) and mobilenet_v3_large-uint8 at API 30 (the same model whole)"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[swin_t-29]": (29, "the CNNs at API 29"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[vit_b_16-29]": (25, "the CNNs at API 29"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[deeplabv3_mobilenet_v3_large-29]":
        (25, "tests/lowering/test_dilated_conv_and_lrn.py's deeplabv3 below API 29 (the same "
                                                "resize form; native dilation in tests/lowering)"),
    "models/test_quantized_zoo.py::test_quantized_cnn_is_one_8bit_nnapi_model[regnet_y_400mf]":
        (39, "shufflenet_v2_x0_5 and the 8-bit model tests"),
    "models/test_quantized_zoo.py::test_quantized_cnn_is_one_8bit_nnapi_model[googlenet]":
        (31, "shufflenet_v2_x0_5 and the 8-bit model tests"),
    "models/test_model_zoo.py::test_model_is_one_nnapi_subgraph_and_matches_eager[densenet121]":
        (26, "the other torchvision CNNs"),
    "aarch64/test_aarch64_runner.py::test_mobilenet_v2_float_api_30":
        (102, "the dynamic, 8-bit, llama and control-flow programs under qemu"),
    "tools/test_examples.py::test_llama_on_host_generates_eager_tokens_with_nnapi_and_xnnpack":
        (33, "tests/models/test_llama.py (the same generation, NNAPI only)"),
    "tools/test_examples.py::test_hf_decoder_on_host_generates_eager_tokens_with_nnapi_and_xnnpack":
        (31, "tests/models/test_hf_decoders.py (the same generation, NNAPI only)"),
    "runtime/test_cross_compile.py::test_runtime_compiles_for_aarch64_linux_and_android":
        (71, "scripts/dev.sh setup's aarch64 build of the backend and runner, run by tests/aarch64 (the "
             "Android stand-in compile is this test's alone)"),
    "tools/test_examples_runner.py::test_run_on_host_example":
        (47, "tests/runtime/test_runner.py and the README quick starts in tests/repository"),
    "models/test_outside_models_round2.py::test_model_is_one_nnapi_subgraph_and_matches_eager[timm botnet26t_256]":
        (31, "timm BottleneckAttn (botnet26t) of the same file, and tests/lowering/test_high_rank_regions.py"),
    "models/test_outside_models_round2.py::test_model_is_one_nnapi_subgraph_and_matches_eager[timm halonet26t]":
        (32, "timm HaloAttn (halonet26t) of the same file, and tests/lowering/test_computed_gathers.py"),
    "models/test_outside_models_round2.py::test_model_is_one_nnapi_subgraph_and_matches_eager[timm skresnet18]":
        (25, "timm SelectiveKernel (skresnet18) of the same file"),
    "models/test_outside_models_round2.py::test_model_is_one_nnapi_subgraph_and_matches_eager[timm resnest14d]":
        (13, "timm SplitAttn (resnest14d) of the same file"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[shufflenet_v2_x0_5-28]":
        (12, "shufflenet_v2_x0_5 at API 27"),
    "models/test_quantized_transformers.py::test_quantized_transformer_is_one_subgraph_close_to_convert_pt2e[swin]":
        (27, "the 8-bit vit and convnext"),
    "models/test_detectors.py::test_dense_detector_is_one_nnapi_model_with_torchvisions_detections"
    "[retinanet_resnet18_fpn]": (30, "fcos_resnet18_fpn (the same module; RetinaNet's decoding is SSD's and Faster "
                                     "R-CNN's BoxCoder)"),
    "models/test_detectors.py::test_mask_rcnn_is_one_nnapi_model_with_torchvisions_detections_and_masks"
    "[maskrcnn_mobilenet_v3_large_320_fpn]": (19, "test_keypoint_rcnn_of_an_image_its_transform_resizes "
                                                  "(torchvision's GeneralizedRCNN, RPN and RoI heads; all but the "
                                                  "mask branch)"),
    "models/test_detectors.py::test_resnet50_detectors[retinanet_resnet50_fpn]":
        (100, "retinanet_resnet18_fpn: torchvision's RetinaNet class and post-processing on a lighter trunk"),
    "models/test_detectors.py::test_resnet50_detectors[fcos_resnet50_fpn]":
        (90, "fcos_resnet18_fpn: torchvision's FCOS class and post-processing on a lighter trunk"),
    "models/test_detectors.py::test_mask_rcnn_is_one_nnapi_model_with_torchvisions_detections_and_masks"
    "[maskrcnn_resnet50_fpn]": (110, "maskrcnn_mobilenet_v3_large_320_fpn: torchvision's MaskRCNN class and heads on "
                                     "a lighter trunk"),
    "models/test_keypoint_detector.py::test_keypoint_rcnn_is_one_nnapi_model_with_torchvisions_keypoints"
    "[keypointrcnn_resnet50_fpn]": (60, "test_keypoint_rcnn_of_an_image_its_transform_resizes: torchvision's "
                                        "KeypointRCNN class, keypoint branch and post-processing on a lighter "
                                        "trunk and head"),
    "models/test_detectors.py::test_detect_on_host_example":
        (30, "test_keypoint_rcnn_of_an_image_its_transform_resizes (an R-CNN's export and run)"),
    # Measured with scripts/tier_coverage.py (docs/development.md): together these run no line of the
    # package that the default tier does not; each cover says what checks the same claim.
    "models/test_detectors.py::test_ssdlite_is_one_nnapi_model_with_torchvisions_detections":
        (68, "tests/aarch64's test_ssdlite_detector_at_two_image_sizes (the same export, image size a Dim, one "
             "delegate, detections equal to eager torchvision at two sizes, on x86 and ARM64) and "
             "test_detectors_quantized (SSDlite whole with its post-processing in NNAPI)"),
    "models/test_detectors.py::test_faster_rcnn_is_one_nnapi_model_with_torchvisions_detections":
        (50, "test_keypoint_rcnn_of_an_image_its_transform_resizes (torchvision's GeneralizedRCNN, RPN, RoI "
             "heads and box post-processing, one NNAPI model, detections equal to eager)"),
    "models/test_keypoint_detector.py::test_keypoint_rcnn_is_one_nnapi_model_with_torchvisions_keypoints"
    "[keypointrcnn_mobilenet_v3_large_320_fpn]":
        (67, "test_keypoint_rcnn_of_an_image_its_transform_resizes (the same model on an image its transform "
             "resizes: detections and keypoints equal to eager)"),
    "models/test_mixture_of_experts.py::test_dense_experts_are_one_subgraph_and_generate_as_the_sparse_eager"
    "[qwen2_moe]": (35, "the mixtral case (the same dense-experts rewrite and generation check)"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[deeplabv3_mobilenet_v3_large-27]":
        (17, "tests/lowering/test_dilated_conv_and_lrn.py's test_deeplabv3_mobilenet_v3_large_below_api_29[27]"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[deeplabv3_mobilenet_v3_large-28]":
        (21, "tests/lowering/test_dilated_conv_and_lrn.py's test_deeplabv3_mobilenet_v3_large_below_api_29[28]"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[regnet_y_400mf-27]":
        (21, "shufflenet_v2_x0_5 at API 27 (grouped convolutions split) and regnet_y_400mf in the zoo at API 30"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[lraspp_mobilenet_v3_large-28]":
        (15, "tests/lowering/test_resize_before_api30.py and deeplabv3 below API 29 (tests/lowering)"),
    "models/test_feature_levels_zoo.py::test_model_at_feature_level[mnasnet0_5-28]":
        (12, "shufflenet_v2_x0_5 and mobilenet_v3_small at API 27, and tests/lowering/test_ops_feature_levels.py"),
    "models/test_model_zoo.py::test_model_is_one_nnapi_subgraph_and_matches_eager[shufflenet_v2_x0_5]":
        (17, "shufflenet_v2_x0_5 at API 27 (test_feature_levels_zoo) and in 8 bits (test_quantized_zoo)"),
    "models/test_model_zoo.py::test_model_is_one_nnapi_subgraph_and_matches_eager[mobilenet_v3_small]":
        (14, "mobilenet_v3_small at API 27 and the MobileNetV3 trunks of lraspp in the zoo and deeplabv3 "
              "in tests/lowering"),
    "models/test_model_zoo.py::test_model_is_one_nnapi_subgraph_and_matches_eager[mnasnet0_5]":
        (11, "mobilenet_v2 (the same inverted residual blocks)"),
    "models/test_hf_decoders.py::test_hf_decoder_is_one_subgraph_and_generates_as_eager[qwen2]":
        (13, "the llama cases and test_outside_models' Qwen2ForCausalLM"),
    "models/test_transformer_models.py::test_transformer_model[swin_t]":
        (45, "test_ops_transformer's swin window chains (static and dynamic sizes), the vit and convnext models"),
    "models/test_transformer_models.py::test_transformer_model[convnext_tiny]":
        (14, "convnext_tiny_dynamic_hw (the same model, H and W dynamic) and the 8-bit convnext"),
    "models/test_quantized_timm.py::test_timm_cnn_is_one_8bit_subgraph_as_accurate_as_xnnpack":
        (27, "the 8-bit torchvision models (test_quantized_models, test_quantized_zoo); XNNPACK's yardstick "
             "is the long tier's"),
    # Four more (this measurement: no function-body line of their own either); the default tier
    # runs their blocks in the models and op tests named.
    "models/test_model_zoo.py::test_model_is_one_nnapi_subgraph_and_matches_eager[googlenet]":
        (19, "squeezenet1_1 (concatenated branches, ceil-mode max pools) and the other torchvision CNNs"),
    "models/test_model_zoo.py::test_model_is_one_nnapi_subgraph_and_matches_eager[deeplabv3_mobilenet_v3_large]":
        (17, "tests/lowering/test_dilated_conv_and_lrn.py's deeplabv3 at API 27 and 28 (the same model whole) "
             "and test_ops_core's native dilated CONV_2D, lraspp_mobilenet_v3_large (the same trunk)"),
    "models/test_model_zoo.py::test_model_is_one_nnapi_subgraph_and_matches_eager[efficientnet_b0]":
        (18, "mobilenet_v2 (inverted residual blocks), regnet_y_400mf (squeeze-and-excitation) and "
             "tests/lowering/test_ops_activations.py (SiLU)"),
    "models/test_quantized_zoo.py::test_quantized_cnn_is_one_8bit_nnapi_model[squeezenet1_1]":
        (13, "shufflenet_v2_x0_5 in 8 bits and the 8-bit model tests; squeezenet1_1 in float (test_model_zoo)"),
}
