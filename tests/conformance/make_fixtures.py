#!/usr/bin/env python3
"""Exports the conformance models with real MXNet 1.9.1 (and GluonCV for the detectors, segmentation
models and pose estimators) and records MXNet's outputs.

Run by tests/conformance/make_fixtures.sh (which caches the result); directly:
    python tests/conformance/make_fixtures.py --set ci|full --out DIR [--only NAME ...]

Every model gets fixed-seed random weights, then a few calibration passes on a fixed input that give
each layer a unit-scale output (see calibrate()): without them deep random networks end in outputs
that vanish, explode or do not depend on the input, and a detector's class scores all tie, which would make
the comparison meaningless. MXNet's outputs are those of the saved files, loaded back with
SymbolBlock.imports. Each case is an input (float32, N(0, 1), fixed seed; for the text models of TEXT
and UNROLLED, token ids as float32, or int32 where the symbol declares it) and MXNet's outputs for it,
saved as .npy; manifest.json lists them. A case MXNet itself refuses (a size the model's fixed pooling or
dense layers cannot take, a T other than an unrolled cell's) is recorded under "refused" with MXNet's
reason.

GluonCV's segmentation models fix their output size when built (crop_size: the final bilinear resize
writes that size whatever the input; PSPNet and DeepLab also resize their pooled branches to 1/8 of it,
so they take no other input size): each is built without its auxiliary head for the size of its first
case, which is also where it is calibrated.

Each case also records how far MXNet's own float32 result is from a float64 run of the same files
("mxnet_float32_error", see float32_error()): deep random networks amplify float32 rounding (ResNet-152
v1 ends ~3e-4 of its output scale away from float64, growing ~10% per residual block), so that figure,
not a fixed constant, says how closely two float32 implementations can agree.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import zlib

os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")
# No oneDNN graph fusion in the executors: the calibration reads layers that fusion would merge away.
os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"
import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sequence_models  # noqa: E402

CLASSIFIERS = (["alexnet"] + ["vgg%d%s" % (d, bn) for d in (11, 13, 16, 19) for bn in ("", "_bn")] +
               ["resnet%d_v%d" % (d, v) for v in (1, 2) for d in (18, 34, 50, 101, 152)] +
               ["densenet121", "densenet161", "densenet169", "densenet201", "squeezenet1.0", "squeezenet1.1",
                "inceptionv3"] +
               ["mobilenet%s" % m for m in ("1.0", "0.75", "0.5", "0.25")] +
               ["mobilenetv2_%s" % m for m in ("1.0", "0.75", "0.5", "0.25")])
DETECTORS = ["ssd_300_vgg16_atrous_voc", "ssd_512_resnet50_v1_voc", "ssd_512_mobilenet1.0_voc",
             "yolo3_mobilenet1.0_voc", "yolo3_darknet53_voc", "center_net_resnet18_v1b_voc"]
# Two-stage detectors (GluonCV Faster R-CNN, with and without FPN's multi-level RPN and ROIAlign, Mask
# R-CNN: a fourth output of per-detection mask probabilities), built with fewer region proposals than GluonCV's defaults (6000 before NMS, 300 or 1000
# after): the box head runs once per proposal, and at the defaults one Mask R-CNN run takes a minute here.
# Every operator and code path is the same; their batch size is fixed (GluonCV's per_device_batch_size) at 1.
# Not in the CI set: at 128 pixels two overlapping class-2 boxes of Faster R-CNN score within 2e-4 of
# each other (MXNet's own float32 error there is 2e-3), and MXNet's last NMS keeps one, Quiver's the
# other; the detection rule has no allowance for such a near-tie yet.
GLUONCV_RCNN = ["faster_rcnn_resnet50_v1b_voc", "faster_rcnn_fpn_resnet50_v1b_coco", "mask_rcnn_resnet50_v1b_coco"]
GLUONCV_RCNN_PROPOSALS = (1000, 64)  # (before, after) the RPN's NMS
SEGMENTERS = ["fcn_resnet50_voc", "psp_resnet50_ade", "deeplab_resnet50_ade", "danet_resnet50_citys",
              "icnet_resnet50_citys", "fastscnn_citys"]
# Pose estimation (GluonCV): one dense heatmap per keypoint, compared by the classifiers' rule. Their
# sizes are (height, width): they take portrait crops.
POSE = {"simple_pose_resnet18_v1b": {"native": (256, 192), "other": (320, 256), "ci": (128, 96)},
        "alpha_pose_resnet101_v1b_coco": {"native": (256, 192), "other": (128, 96)}}
# GluonCV classifiers beyond the Gluon zoo: HRNet (nearest UpSampling between its branches), SE-ResNeXt
# and ResNeSt (adaptive pooling, split attention), Xception (Pad), NASNet (two outputs: the logits and
# its auxiliary head's), Residual Attention (BilinearResize2D to its trunk's size), and ResNet-50 v1b
# with GroupNorm(32) in place of BatchNorm ("resnet50_v1b_gn", built by build()).
GLUONCV_CLASSIFIERS = ["hrnet_w18_small_v1_c", "se_resnext50_32x4d", "resnest50", "xception", "nasnet_4_1056",
                       "residualattentionnet56", "resnet50_v1b_gn"]
# Calibration batches other than 2: ResNeSt's split attention normalises globally pooled features with
# BatchNorm, one value per sample and channel, whose statistics two samples measure poorly: calibrated on
# 2, MXNet's own float32 error against float64 reaches 11% of the output scale; on 8, 1.1e-3.
# GluonCV's two-stage detectors take one image (GLUONCV_RCNN).
CALIBRATION_BATCH = {"resnest50": 8, **{name: 1 for name in GLUONCV_RCNN}}
# Dense regression with GluonCV: Monodepth2's disparities at four scales, (height, width) sizes.
DEPTH = {"monodepth2_resnet18_kitti_stereo_640x192": {"native": (192, 640), "other": (96, 320)}}
# Action recognition (GluonCV, 3-D convolution and pooling): clips (N, 3, frames, H, W) of a fixed
# number of frames (SlowFast's 36 are its fast path's 32 and its slow path's 4), two square sizes.
VIDEO = {"i3d_resnet50_v1_kinetics400": {"frames": 8, "native": 112, "other": 96},
         "slowfast_4x16_resnet50_kinetics400": {"frames": 36, "native": 96, "other": 64}}
# Networks built with mx.sym as older MXNet code builds them: MXNet's own SSD in its deploy form
# (MultiBoxPrior + MultiBoxDetection), and a RetinaFace-style feature pyramid (UpSampling, Crop,
# ElementWiseSum) whose dense outputs are compared by the classifiers' rule.
SYMBOLIC_DETECTORS = ["mxnet_symbolic_ssd"]
SYMBOLIC_DENSE = ["mxnet_symbolic_fpn"]
# mx-rcnn's symbolic Faster R-CNN in its deploy form (Proposal + ROIPooling), inputs data and im_info:
# batch 1 only (Proposal takes one image), at two sizes; and the form MXNet 1.9.1's rcnn example builds
# (softmax over axis 1, MultiProposal), which takes a batch.
SYMBOLIC_RCNN = {"mxnet_symbolic_rcnn": [(1, 256), (1, 192)], "mxnet_symbolic_rcnn_multi": [(2, 192), (1, 256)]}
# Tracking (GluonCV's SiamRPN, export_tracker()): two inputs, the template (data0) and the search region
# (data1); outputs the anchors' class scores and box offsets. Its DepthwiseXCorr bakes every feature-map
# size into Reshape attributes, so an export takes one template size, one search size and one batch
# size: GluonCV's tracking form (bz=1, is_train=False) template 127 and search 287 (its tracker's
# INSTANCE_SIZE), batch 1; its training form (is_train=True) search 255, built here with bz=2 for batch
# 2. MXNet does not check a Reshape's element count (matrix_op-inl.h: the check is compiled out): fed
# search 255, the tracking form reads 45056 values past its search features' buffer, whatever memory
# follows, and fed batch 2 it corrupts the heap. Quiver refuses such sizes (test_conformance.py).
# Cases are (batch, template size, search size).
TRACKERS = {"siamrpn_alexnet_v2_otb15": {"bz": 1, "is_train": False, "cases": [(1, 127, 287)]},
            "siamrpn_alexnet_v2_otb15_bz2": {"bz": 2, "is_train": True, "cases": [(2, 127, 255)]}}
TRACKER_INPUTS = ("data0", "data1")
# Small BERT encoders (sequence_models.py): (batch, sequence length) cases.
SEQUENCE_CASES = [(1, 8), (3, 8), (1, 16), (3, 16)]


def input_shape(name, batch, size):
    """(batch, 3, [frames,] height, width)."""
    return (batch, 3) + ((VIDEO[name]["frames"],) if name in VIDEO else ()) + hw(size)


def hw(size):
    """(height, width) of a case's size: an int for square inputs, or a pair."""
    return tuple(size) if isinstance(size, (tuple, list)) else (size, size)


def native_size(name):
    if name in SEGMENTERS:
        return 224  # GluonCV's own is 480: its dilated ResNet-50 costs fixtures ~5x as much there
    if name in POSE:
        return POSE[name]["native"]
    if name in DEPTH:
        return DEPTH[name]["native"]
    if name in VIDEO:
        return VIDEO[name]["native"]
    if name.startswith("yolo3"):
        return 416
    if name.startswith("center_net"):
        return 512
    if name in GLUONCV_RCNN:
        return 320  # GluonCV resizes the short side to 600 (800 for COCO); the layers are the same
    if name in SYMBOLIC_DETECTORS:
        return 256
    if name in SYMBOLIC_DENSE:
        return 200  # odd feature maps below it: the upsampled ones are cropped
    if name == "resnet50_v1b_gn":
        return 128  # GroupNorm's float64 oracle run is slow: a fresh CI makes this one
    return 299 if name == "inceptionv3" else 300 if "_300_" in name else 512 if name.startswith("ssd_512") else 224


def full_cases(name):
    """(batch, size) pairs: batch 1 and 2 at the model's own size, batch 1 at another size."""
    if name in sequence_models.SEQUENCE_MODELS:
        return SEQUENCE_CASES
    size = native_size(name)
    others = {128: 96, 200: 150, 224: 160, 256: 192, 299: 331, 300: 256, 320: 256, 416: 320, 512: 384}
    sized = dict(POSE, **DEPTH, **VIDEO)
    other = sized[name]["other"] if name in sized else others[size]
    if name in GLUONCV_RCNN:
        return [(1, size), (1, other)]
    return [(1, size), (2, size), (1, other)]  # a segmentation model's built size first (see build())


# Sequence models (issue 33): token ids (float32, as MXNet users feed them) through Embedding into a
# hybridized Gluon RNN layer; cases are (batch, sequence length).
TEXT = {
    # Embedding -> 2-layer bidirectional LSTM over (N, T) (layout NTC: SwapAxis around RNN) -> mean over time -> Dense.
    "text_lstm_bi2": dict(cell="lstm", layers=2, bidirectional=True, layout="NTC", pool="mean"),
    # Embedding -> GRU over (T, N) -> SequenceLast -> Dense.
    "text_gru": dict(cell="gru", layers=1, bidirectional=False, layout="TNC", pool="last"),
    # Embedding -> 2-layer bidirectional ReLU RNN over (T, N) -> SequenceLast -> Dense (full set only).
    "text_rnn_relu": dict(cell="rnn_relu", layers=2, bidirectional=True, layout="TNC", pool="last"),
    # text_gru whose symbol declares its data input int32 ("__dtype__", as mx.sym.var(dtype='int32')
    # writes it): int32 ids, MXNet's outputs computed on int32 input.
    "text_gru_int32": dict(cell="gru", layers=1, bidirectional=False, layout="TNC", pool="last", dtype="int32"),
}
TEXT_VOCAB, TEXT_EMBED, TEXT_HIDDEN, TEXT_CLASSES = 50, 16, 24, 5
TEXT_CASES = [(1, 7), (3, 7), (1, 20), (3, 20)]
# Unrolled cells (issue 33): Embedding -> a cell unrolled over T steps (layout NTC, merge_outputs), one
# copy of the cell per step (FullyConnected, SliceChannel, sigmoid / tanh, elementwise ops, `_zeros`
# begin states whose batch size 0 is left to shape inference), so the export takes that T only ->
# Dense(flatten=False) on every step -> mean over time. Gluon's LSTMCell / GRUCell; "mxnet_rnn_lstm_cell":
# MXNet's legacy symbolic mx.rnn.LSTMCell over mx.sym.Embedding, saved with mx.model.save_checkpoint.
# Cases (batch, T): batch 1 and 3 at the exported T, and batch 1 at T + 3, which MXNet refuses
# ("refused": the per-step SliceChannel cannot split it).
UNROLLED = {"text_lstm_cell": dict(cell="lstm", steps=9), "text_lstm_cell_t4": dict(cell="lstm", steps=4),
            "text_gru_cell": dict(cell="gru", steps=9), "mxnet_rnn_lstm_cell": dict(cell="legacy_lstm", steps=9)}
UNROLLED_CASES = {name: [(1, m["steps"]), (3, m["steps"]), (1, m["steps"] + 3)] for name, m in UNROLLED.items()}

# CI: a few small models on small inputs (its cold cost is part of every fresh CI run).
CI = {"resnet18_v2": [(1, 64), (2, 64)], "mobilenet0.25": [(1, 96), (2, 64)],
      "mobilenetv2_0.25": [(1, 64), (2, 96)],
      "ssd_512_mobilenet1.0_voc": [(1, 128), (2, 128)], "yolo3_mobilenet1.0_voc": [(1, 160), (2, 128)],
      "center_net_resnet18_v1b_voc": [(1, 128), (2, 128)],
      "psp_resnet50_ade": [(1, 64), (2, 64)], "mxnet_symbolic_ssd": [(1, 128), (2, 96)],
      "hrnet_w18_small_v1_c": [(1, 64), (2, 64)], "mxnet_symbolic_fpn": [(1, 100), (2, 76)],
      "bert_small": [(1, 8), (3, 16)], "text_lstm_bi2": [(1, 7), (3, 20)], "text_gru": [(3, 7), (1, 20)],
      "mxnet_symbolic_rcnn": [(1, 96)], "text_gru_int32": [(3, 7)]}
CI.update({name: [(1, p["ci"]), (2, p["ci"])] for name, p in POSE.items() if "ci" in p})
# GroupNorm and Fast-SCNN (BilinearResize2D, AdaptiveAvgPooling2D): ~5 s each to make.
CI.update({"resnet50_v1b_gn": [(1, 64), (2, 64)], "fastscnn_citys": [(1, 64), (2, 64)]})
# The tracker in its tracking form (two inputs, a weight computed in the graph): ~8 s to make.
CI["siamrpn_alexnet_v2_otb15"] = TRACKERS["siamrpn_alexnet_v2_otb15"]["cases"]


class TextClassifier(mx.gluon.HybridBlock):
    def __init__(self, cell, layers, bidirectional, layout, pool, **kwargs):
        super().__init__(**kwargs)
        self.layout, self.pool = layout, pool
        kwargs = dict(num_layers=layers, bidirectional=bidirectional, layout=layout)
        with self.name_scope():
            self.embedding = mx.gluon.nn.Embedding(TEXT_VOCAB, TEXT_EMBED)
            if cell == "rnn_relu":
                self.rnn = mx.gluon.rnn.RNN(TEXT_HIDDEN, activation="relu", **kwargs)
            else:
                self.rnn = {"lstm": mx.gluon.rnn.LSTM, "gru": mx.gluon.rnn.GRU}[cell](TEXT_HIDDEN, **kwargs)
            self.dense = mx.gluon.nn.Dense(TEXT_CLASSES, flatten=False)

    def hybrid_forward(self, F, x):
        h = self.rnn(self.embedding(x))
        time_axis = 1 if self.layout == "NTC" else 0
        h = F.mean(h, axis=time_axis) if self.pool == "mean" else F.SequenceLast(h, axis=time_axis)
        return self.dense(h)


class UnrolledText(mx.gluon.HybridBlock):
    def __init__(self, cell, steps, **kwargs):
        super().__init__(**kwargs)
        self.steps = steps
        with self.name_scope():
            self.embedding = mx.gluon.nn.Embedding(TEXT_VOCAB, TEXT_EMBED)
            self.cell = {"lstm": mx.gluon.rnn.LSTMCell, "gru": mx.gluon.rnn.GRUCell}[cell](TEXT_HIDDEN)
            self.dense = mx.gluon.nn.Dense(TEXT_CLASSES, flatten=False)

    def hybrid_forward(self, F, x):
        h, _ = self.cell.unroll(self.steps, self.embedding(x), layout="NTC", merge_outputs=True)
        return F.mean(self.dense(h), axis=1)


def legacy_unrolled_lstm(steps):
    """mx.rnn.LSTMCell unrolled over mx.sym.Embedding, as MXNet's symbolic examples build it."""
    embed = mx.sym.Embedding(mx.sym.var("data"), input_dim=TEXT_VOCAB, output_dim=TEXT_EMBED, name="embed")
    h, _ = mx.rnn.LSTMCell(TEXT_HIDDEN, prefix="lstm_").unroll(steps, inputs=embed, merge_outputs=True)
    return mx.sym.mean(mx.sym.FullyConnected(h, num_hidden=TEXT_CLASSES, flatten=False, name="fc"), axis=1)


def task(name):
    if name in sequence_models.SEQUENCE_MODELS:
        return "sequence"
    if name in TRACKERS:
        return "tracking"
    if name in DETECTORS + SYMBOLIC_DETECTORS + GLUONCV_RCNN:
        return "detection"
    return "segmentation" if name in SEGMENTERS else "pose" if name in POSE else "classification"


def build(name, size):
    """The Gluon network; a segmentation model is built for input and output size `size`."""
    if name == "resnet50_v1b_gn":
        from gluoncv.model_zoo.resnetv1b import resnet50_v1b

        def group_norm(in_channels, **kwargs):  # ResNetV1b passes BatchNorm's in_channels
            return mx.gluon.nn.GroupNorm(num_groups=32, **kwargs)
        return resnet50_v1b(pretrained=False, norm_layer=group_norm)
    if name in DETECTORS + GLUONCV_RCNN + SEGMENTERS + list(POSE) + GLUONCV_CLASSIFIERS + list(DEPTH) + list(VIDEO):
        from gluoncv import model_zoo
        extra = {"aux": False, "crop_size": size} if name in SEGMENTERS else {}
        if name not in GLUONCV_CLASSIFIERS:  # those have no base network
            extra["pretrained_base"] = False
        net = model_zoo.get_model(name, pretrained=False, **extra)
        if name in GLUONCV_RCNN:  # GluonCV's model constructors fix these; the network reads them when hybridized
            net.rpn._test_pre_nms, net.rpn._test_post_nms = GLUONCV_RCNN_PROPOSALS
            net._rpn_test_post_nms = GLUONCV_RCNN_PROPOSALS[1]
        return net
    from mxnet.gluon.model_zoo import vision
    return vision.get_model(name)


def symbolic_ssd(classes=3):
    """A small SSD as MXNet's SSD example builds its deploy symbol: two feature maps, each with
    MultiBoxPrior anchors and class / box convolutions, then softmax over the classes and
    MultiBoxDetection (rows [class, score, xmin, ymin, xmax, ymax] relative to the image)."""
    sym = mx.sym
    x = sym.Variable("data")
    for i, filters in enumerate((16, 32)):
        x = sym.Activation(sym.Convolution(x, num_filter=filters, kernel=(3, 3), pad=(1, 1), name="conv%d" % i),
                           act_type="relu")
        x = sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max")
    maps = [x, sym.Activation(sym.Convolution(x, num_filter=32, kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                              name="conv2"), act_type="relu")]
    specs = [((0.2, 0.272), (1, 2, 0.5)), ((0.37, 0.447), (1, 2, 0.5, 3, 1 / 3.))]
    cls, loc, anchors = [], [], []
    for i, (feature, (sizes, ratios)) in enumerate(zip(maps, specs)):
        per_place = len(sizes) + len(ratios) - 1
        c = sym.Convolution(feature, num_filter=per_place * (classes + 1), kernel=(3, 3), pad=(1, 1), name="cls%d" % i)
        b = sym.Convolution(feature, num_filter=per_place * 4, kernel=(3, 3), pad=(1, 1), name="loc%d" % i)
        cls.append(sym.Flatten(sym.transpose(c, axes=(0, 2, 3, 1))))
        loc.append(sym.Flatten(sym.transpose(b, axes=(0, 2, 3, 1))))
        anchors.append(sym.contrib.MultiBoxPrior(feature, sizes=sizes, ratios=ratios, clip=False))
    cls_logits = sym.transpose(sym.Reshape(sym.concat(*cls, dim=1), shape=(0, -1, classes + 1)), axes=(0, 2, 1))
    cls_prob = sym.softmax(cls_logits, axis=1)
    return sym.contrib.MultiBoxDetection(cls_prob, sym.concat(*loc, dim=1), sym.concat(*anchors, dim=1),
                                         nms_threshold=0.45, force_suppress=False, variances=(0.1, 0.1, 0.2, 0.2),
                                         nms_topk=400, name="detection")


def symbolic_fpn():
    """A RetinaFace-style feature pyramid: three stride-2 stages, 1x1 laterals, each deeper level
    upsampled (nearest), cropped like the level above (odd sizes make it one pixel larger) and added to
    it (ElementWiseSum); a 3x3 head on every level, the three heads the outputs."""
    sym = mx.sym
    x = sym.Variable("data")
    stages = []
    for i, filters in enumerate((8, 16, 32)):
        x = sym.Activation(sym.Convolution(x, num_filter=filters, kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                           name="stage%d" % i), act_type="relu")
        stages.append(x)
    level = sym.Convolution(stages[2], num_filter=16, kernel=(1, 1), name="lateral2")
    levels = [level]
    for i in (1, 0):
        lateral = sym.Convolution(stages[i], num_filter=16, kernel=(1, 1), name="lateral%d" % i)
        up = sym.UpSampling(level, scale=2, sample_type="nearest", num_args=1, name="up%d" % i)
        level = sym.ElementWiseSum(sym.Crop(up, lateral, num_args=2, name="crop%d" % i), lateral, name="sum%d" % i)
        levels.append(level)
    return sym.Group([sym.Convolution(l, num_filter=4, kernel=(3, 3), pad=(1, 1), name="head%d" % i)
                      for i, l in enumerate(levels)])


RCNN_CLASSES = 4
RCNN_STRIDE = 8


def symbolic_rcnn(multi=False, classes=RCNN_CLASSES):
    """A small Faster R-CNN as mx-rcnn builds its test symbol: a stride-8 backbone of three convolutions,
    the RPN head (rpn_cls_score -> Reshape (0, 2, -1, 0) -> SoftmaxActivation mode=channel -> Reshape
    (0, 2A, -1, 0) -> Proposal with im_info), ROIPooling of the backbone's map at 1/8, a fully connected
    head giving cls_prob (softmax) and bbox_pred, both reshaped to (N, 300, ...). Outputs: rois
    (N x 300, 5), cls_prob (N, 300, classes), bbox_pred (N, 300, 4 classes). `multi`: as MXNet 1.9.1's
    example/rcnn, softmax over axis 1 and MultiProposal."""
    sym = mx.sym
    scales, ratios = (2, 4, 8), (0.5, 1, 2)
    anchors = len(scales) * len(ratios)
    x = sym.Variable("data")
    for i, filters in enumerate((16, 32, 32)):
        x = sym.Activation(sym.Convolution(x, num_filter=filters, kernel=(3, 3), pad=(1, 1), name="conv%d" % i),
                           act_type="relu")
        x = sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max")
    rpn = sym.Activation(sym.Convolution(x, num_filter=32, kernel=(3, 3), pad=(1, 1), name="rpn_conv_3x3"),
                         act_type="relu")
    rpn_cls_score = sym.Convolution(rpn, num_filter=2 * anchors, kernel=(1, 1), name="rpn_cls_score")
    rpn_bbox_pred = sym.Convolution(rpn, num_filter=4 * anchors, kernel=(1, 1), name="rpn_bbox_pred")
    rpn_cls_score = sym.Reshape(rpn_cls_score, shape=(0, 2, -1, 0), name="rpn_cls_score_reshape")
    rpn_cls_prob = (sym.softmax(rpn_cls_score, axis=1, name="rpn_cls_prob") if multi else
                    sym.SoftmaxActivation(rpn_cls_score, mode="channel", name="rpn_cls_prob"))
    rpn_cls_prob = sym.Reshape(rpn_cls_prob, shape=(0, 2 * anchors, -1, 0), name="rpn_cls_prob_reshape")
    proposal = sym.contrib.MultiProposal if multi else sym.contrib.Proposal
    rois = proposal(cls_prob=rpn_cls_prob, bbox_pred=rpn_bbox_pred, im_info=sym.Variable("im_info"),
                                name="rois", feature_stride=RCNN_STRIDE, scales=scales, ratios=ratios,
                                rpn_pre_nms_top_n=6000, rpn_post_nms_top_n=300, threshold=0.7, rpn_min_size=8)
    pool = sym.ROIPooling(x, rois, pooled_size=(4, 4), spatial_scale=1.0 / RCNN_STRIDE, name="roi_pool")
    fc = sym.Activation(sym.FullyConnected(sym.Flatten(pool), num_hidden=64, name="fc6"), act_type="relu")
    cls_prob = sym.softmax(sym.FullyConnected(fc, num_hidden=classes, name="cls_score"), name="cls_prob")
    bbox_pred = sym.FullyConnected(fc, num_hidden=4 * classes, name="bbox_pred")
    return sym.Group([rois, sym.Reshape(cls_prob, shape=(-1, 300, classes), name="cls_prob_reshape"),
                      sym.Reshape(bbox_pred, shape=(-1, 300, 4 * classes), name="bbox_pred_reshape")])


def rcnn_im_info(batch, size):
    """mx-rcnn's im_info rows (height, width, scale) of images resized into `size` and padded: each image
    ends short of the padded input, so Proposal drops the anchors past it."""
    return np.array([[size - 12, size - 21, 1.0], [size - 30, size - 9, 0.8]][:batch], np.float32)


def initialize_symbol(sym, size, rng, **shapes):
    """He-normal weights and zero biases for a symbol's parameters (no auxiliary states); `shapes` gives
    the shapes of inputs other than data."""
    arg_shapes, _, _ = sym.infer_shape(data=(1, 3) + hw(size), **shapes)
    args = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name == "data" or name in shapes:
            continue
        fan_in = np.prod(shape[1:]) if len(shape) > 1 else 1
        args[name] = mx.nd.array(rng.normal(0, np.sqrt(2.0 / fan_in), shape) if name.endswith("weight")
                                 else np.zeros(shape))
    return args, {}


def initialize(net):
    """He-normal weights, zero biases, BatchNorm at identity (calibrate() sets its statistics)."""
    for key, p in net.collect_params().items():
        if key.endswith("weight"):
            init = mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2)
        elif key.endswith("gamma") or key.endswith("running_var"):
            init = mx.init.One()
        else:
            init = mx.init.Zero()
        p.initialize(default_init=init, force_reinit=True)  # GluonCV initialises some heads when built


def calibrate(sym, args, auxs, x, rng, inputs=None):
    """Gives every layer a unit-scale output on x, as a trained network would have.

    Works on the exported symbol (GluonCV's SSD backbones are SymbolBlocks that Gluon's block tree does
    not reach), layer by layer in graph order, each measured after the layers before it are set:
    BatchNorm gets random affine terms and moving statistics measured on x (near-zero variances, from
    1x1 feature maps, floored); a Convolution or FullyConnected that no BatchNorm follows gets weights
    scaled so that its output has unit standard deviation. A layer applied several times (Mask R-CNN's
    last ResNet stage runs for its box head and its mask head) is set where it is first used. `inputs` holds any inputs besides data.
    """
    nodes = json.loads(sym.tojson())["nodes"]
    internals = sym.get_internals()
    output_names = internals.list_outputs()
    feeds_bn = {n["inputs"][0][0] for n in nodes if n["op"] == "BatchNorm"}
    scaled = set()
    # A node's parameters: its inputs past the data that are variables (SiamRPN's correlation takes its
    # weight from the template branch, which the layers before it have set).
    params_of = {i: [nodes[e[0]]["name"] for e in n["inputs"][1:] if nodes[e[0]]["op"] == "null"]
                 for i, n in enumerate(nodes)}

    def measure(i):
        # Nodes of one name (a shared layer's uses) are that name's outputs in the same (graph) order.
        node = nodes[i]
        name = node["name"] if node["op"] == "null" else node["name"] + "_output"
        use = sum(1 for n in nodes[:i] if n["name"] == node["name"])
        out = internals[[k for k, o in enumerate(output_names) if o == name][use]]
        feed = dict(args, data=x, **(inputs or {}))
        ex = out.bind(mx.cpu(), args={k: feed[k] for k in out.list_arguments()},
                      aux_states={k: auxs[k] for k in out.list_auxiliary_states()}, grad_req="null")
        return ex.forward(is_train=False)[0].asnumpy().astype(np.float64)

    for i, n in enumerate(nodes):
        params = params_of[i]
        if n["op"] == "BatchNorm":
            gamma, beta, mean, var = params[:4]
            args[gamma] = mx.nd.array(rng.uniform(0.5, 1.5, args[gamma].shape))
            args[beta] = mx.nd.array(rng.uniform(-0.2, 0.2, args[beta].shape))
            v = measure(n["inputs"][0][0])
            axes = (0,) + tuple(range(2, v.ndim))
            measured = v.var(axis=axes)
            auxs[mean] = mx.nd.array(v.mean(axis=axes))
            auxs[var] = mx.nd.array(np.maximum(measured, 0.25 * measured.mean()))
        elif n["op"] in ("Convolution", "FullyConnected") and i not in feeds_bn and params and not scaled & set(params):
            std = measure(i).std()
            if std > 0 and np.isfinite(std):
                for p in params:
                    args[p] = args[p] / std
            scaled.update(params)


def score_logits(sym):
    """The values a detector's scores are a function of, as one grouped symbol: SSD's class logits (the
    input of its last softmax); YOLOv3's objectness and class logits (the inputs of the sigmoids whose
    outputs multiply into the scores); CenterNet's heatmap logits (the input of its one sigmoid: a score
    is the heatmap's value at a peak, p = sigmoid(a), which moves by at most p (1 - p) times their error)."""
    nodes = json.loads(sym.tojson())["nodes"]
    internals = sym.get_internals()
    softmax = [n for n in nodes if n["op"] == "softmax"]
    sigmoids = {i for i, n in enumerate(nodes) if n["op"] == "sigmoid"}
    if softmax:
        heads = [softmax[-1]["inputs"][0][0]]
    else:
        heads = sorted({nodes[e[0]]["inputs"][0][0] for n in nodes if n["op"] == "broadcast_mul"
                        for e in n["inputs"] if e[0] in sigmoids})
    if not heads and len(sigmoids) == 1:
        heads = [nodes[min(sigmoids)]["inputs"][0][0]]
    return mx.sym.Group([internals[nodes[i]["name"] + "_output"] for i in heads])


def class_head(sym):
    """The parameters (weight, bias) of the FullyConnected layer whose outputs a detector's last softmax
    reads."""
    nodes = json.loads(sym.tojson())["nodes"]
    i = [n for n in nodes if n["op"] == "softmax"][-1]["inputs"][0][0]
    while nodes[i]["op"] != "FullyConnected":
        i = nodes[i]["inputs"][0][0]
    return [nodes[e[0]]["name"] for e in nodes[i]["inputs"][1:]]


def in_dtype(sym, dtype):
    """The symbol with every float32 dtype attribute set to `dtype`: the nodes that make their own values
    (Gluon's `_zeros` begin states, Embedding's output, GluonCV's `_arange`s) and Casts say float32 in the
    export, and argsort's and topk's indices are float32 unless a dtype says otherwise."""
    graph = json.loads(sym.tojson())
    for node in graph["nodes"]:
        attrs = node.setdefault("attrs", {})
        if attrs.get("dtype") == "float32" or (node["op"] in ("argsort", "topk") and "dtype" not in attrs):
            attrs["dtype"] = dtype
    return mx.sym.load_json(json.dumps(graph))


def roi_inputs(sym):
    """A two-stage detector's ROIAlign rois inputs ((R, 5) each), in graph order."""
    nodes = json.loads(sym.tojson())["nodes"]
    internals = sym.get_internals()
    return [internals[nodes[n["inputs"][1][0]]["name"] + "_output"] for n in nodes if n["op"] == "_contrib_ROIAlign"]


def mask_logits(sym):
    """Mask R-CNN's mask logits, (N, K, mh, mw): the input of the sigmoid that gives its fourth output."""
    graph = json.loads(sym.tojson())
    nodes = graph["nodes"]
    sigmoid = nodes[graph["heads"][3][0]]
    assert sigmoid["op"] == "sigmoid", "the fourth output is not a sigmoid's"
    return sym.get_internals()[nodes[sigmoid["inputs"][0][0]]["name"] + "_output"]


def run_both(sym, args, auxs, x):
    """The symbol's outputs run in float32 and in float64 (float64 arrays), or None where MXNet cannot
    run it in float64. `x`: the data input, or a dict of the inputs by name."""
    inputs = x if isinstance(x, dict) else {"data": x}
    runs = []
    for dtype in ("float32", "float64"):
        feed = dict(args, **{k: mx.nd.array(v, dtype=v.dtype) for k, v in inputs.items()})
        # An integer input (a typed data variable) stays as it is in both runs.
        cast = {k: dtype if k not in inputs or inputs[k].dtype.kind == "f" else inputs[k].dtype
                for k in sym.list_arguments()}
        try:
            ex = in_dtype(sym, dtype).bind(
                mx.cpu(), args={k: feed[k].astype(cast[k]) for k in sym.list_arguments()},
                aux_states={k: auxs[k].astype(dtype) for k in sym.list_auxiliary_states()}, grad_req="null")
            outs = ex.forward(is_train=False)
        except mx.base.MXNetError:
            if dtype == "float32":
                raise
            return None
        runs.append([o.asnumpy().astype(np.float64) for o in outs])
    return runs


def per_roi_error(logits, rois, args, auxs, x):
    """max |f32 - f64| of logits whose rows are region proposals, over the proposals the two runs agree on
    (within 0.01 pixels): where proposals' scores nearly tie, the runs may propose different regions."""
    runs = run_both(mx.sym.Group([logits, rois]), args, auxs, x)
    if runs is None:
        return 0.0
    (logits32, rois32), (logits64, rois64) = runs
    same = np.abs(rois32 - rois64).max(axis=1) <= 0.01
    assert same.mean() >= 0.5, "float32 and float64 agree on only %d of %d proposals" % (same.sum(), len(same))
    return float(np.abs(logits32 - logits64).reshape(len(same), -1)[same].max())


def float32_error(sym, args, auxs, x, task):
    """MXNet float32 against MXNet float64 (its own non-oneDNN kernels), both on the exported files.

    Classifiers: max |f32 - f64| / max |f64| over the output. Detectors: max |f32 - f64| over the
    logits its scores are computed from (score_logits()): a score's error follows from theirs (see
    test_conformance.py); a two-stage detector's over the proposals both runs make (per_roi_error()).
    0 where MXNet cannot run the files in float64 at all (its legacy Crop is float32 only): the suite's
    fixed 1e-4 bound then applies.
    """
    rois = roi_inputs(sym) if task == "detection" else []
    if rois:
        return per_roi_error(score_logits(sym), rois[0], args, auxs, x)
    runs = run_both(score_logits(sym) if task == "detection" else sym, args, auxs, x)
    if runs is None:
        return 0.0
    runs = [np.concatenate([o.ravel() for o in run]) for run in runs]
    error = np.abs(runs[0] - runs[1]).max()
    return float(error if task == "detection" else error / np.abs(runs[1]).max())


def shape_tag(shape):
    return "x".join(str(d) for d in shape)


def export(name, cases, out_dir, tmp_dir):
    seed = zlib.crc32(name.encode()) % (2 ** 31)
    rng = np.random.RandomState(seed)
    mx.random.seed(seed)
    # Calibrated at the native size: on small inputs the last feature maps are 1x1, too small for statistics.
    size = cases[0][1] if name in SEGMENTERS else native_size(name)
    calib = mx.nd.array(rng.normal(0, 1, input_shape(name, CALIBRATION_BATCH.get(name, 2), size)).astype(np.float32))
    if name in SYMBOLIC_DETECTORS + SYMBOLIC_DENSE:
        sym = symbolic_ssd() if name in SYMBOLIC_DETECTORS else symbolic_fpn()
        args, auxs = initialize_symbol(sym, size, rng)
    else:
        net = build(name, size)
        initialize(net)
        if name in DEPTH:  # its encoder's unused Dense layer defeats the hybridized shape inference
            net(calib)
        net.hybridize()
        net(calib)
        net.export(os.path.join(tmp_dir, name))
        sym, args, auxs = mx.model.load_checkpoint(os.path.join(tmp_dir, name), 0)
    calibrate(sym, args, auxs, calib, rng)
    if name in GLUONCV_RCNN:
        # Unit-scale logits over COCO's 81 classes score few boxes above 0.2; a trained head is confident:
        # its class logits are made 3x as large.
        for p in class_head(sym):
            args[p] = args[p] * 3
    if name.startswith("center_net"):
        # Random weights predict box sizes of either sign (boxes with x1 > x2) where a trained CenterNet
        # predicts positive ones: its size head's bias makes them about N(4, 1) feature-map cells.
        wh_bias = net.heads[1][-1].bias.name
        args[wh_bias] = args[wh_bias] + 4
    prefix = os.path.join(out_dir, name)
    mx.model.save_checkpoint(prefix, 0, sym, args, auxs)
    # The oracle runs the files exactly as a user would load them.
    model = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    model.hybridize()
    entry = {"name": name, "prefix": name, "task": task(name),
             "cases": [], "refused": []}
    for batch, size in cases:
        shape = input_shape(name, batch, size)
        x = rng.normal(0, 1, shape).astype(np.float32)
        try:
            outs = model(mx.nd.array(x))
            outs = [o.asnumpy() for o in (outs if isinstance(outs, (list, tuple)) else [outs])]
        except mx.base.MXNetError as e:
            entry["refused"].append({"shape": list(shape), "reason": str(e).strip().splitlines()[-1][:300]})
            continue
        tag = shape_tag(shape)
        case = {"input": "%s-in-%s.npy" % (name, tag), "shape": list(shape), "outputs": [],
                "mxnet_float32_error": float32_error(sym, args, auxs, x, entry["task"])}
        if len(outs) == 4 and entry["task"] == "detection":  # Mask R-CNN: its masks' own logits
            case["mxnet_mask_error"] = per_roi_error(mask_logits(sym), roi_inputs(sym)[-1], args, auxs, x)
        np.save(os.path.join(out_dir, case["input"]), x)
        for i, o in enumerate(outs):
            case["outputs"].append("%s-out%d-%s.npy" % (name, i, tag))
            np.save(os.path.join(out_dir, case["outputs"][-1]), o)
        entry["cases"].append(case)
    return entry


def with_proposal_scores(sym):
    """The symbol with its Proposal's scores (output_score) appended as the last output."""
    graph = json.loads(sym.tojson())
    proposals = ("_contrib_Proposal", "_contrib_MultiProposal")
    index = next(i for i, n in enumerate(graph["nodes"]) if n["op"] in proposals)
    graph["nodes"][index]["attrs"]["output_score"] = "True"
    graph["heads"].append([index, 1, 0])
    return mx.sym.load_json(json.dumps(graph))


def export_rcnn(name, cases, out_dir, tmp_dir):
    """mx-rcnn's deploy symbol (symbolic_rcnn()) with calibrated random weights; per (batch, size) case the
    inputs data and im_info, MXNet's three outputs, and each roi's RPN score ("rpn_scores": Proposal's
    output_score, which decides the rois' order and which of them survive). The same network with those
    scores as a fourth output is saved too, as "scored_prefix", for the test to read Quiver's. "mxnet_float32_error" is
    MXNet float32 against float64 on the RPN's outputs (Proposal's inputs, relative to their scale):
    Proposal itself runs in float32 only."""
    seed = zlib.crc32(name.encode()) % (2 ** 31)
    rng = np.random.RandomState(seed)
    mx.random.seed(seed)
    size = cases[0][1]
    sym = symbolic_rcnn(multi=name.endswith("_multi"))
    args, auxs = initialize_symbol(sym, size, rng, im_info=(1, 3))
    calib = mx.nd.array(rng.normal(0, 1, (1, 3) + hw(size)).astype(np.float32))
    calibrate(sym, args, auxs, calib, rng, inputs={"im_info": mx.nd.array(rcnn_im_info(1, size))})
    # Trained RPNs predict small corrections to their anchors: deltas of about 0.3, not unit-scale.
    for p in ("rpn_bbox_pred_weight", "rpn_bbox_pred_bias"):
        args[p] = args[p] * 0.3
    prefix = os.path.join(out_dir, name)
    mx.model.save_checkpoint(prefix, 0, sym, args, auxs)
    names = ["data", "im_info"]
    model = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", names, prefix + "-0000.params")
    model.hybridize()
    scored = with_proposal_scores(mx.sym.load(prefix + "-symbol.json"))
    scored.save(prefix + "_scored-symbol.json")
    shutil.copy(prefix + "-0000.params", prefix + "_scored-0000.params")
    internals = sym.get_internals()
    rpn = mx.sym.Group([internals["rpn_cls_score_output"], internals["rpn_bbox_pred_output"]])
    entry = {"name": name, "prefix": name, "scored_prefix": name + "_scored", "task": "rcnn", "cases": [],
             "refused": []}
    for batch, size in cases:
        feed = {"data": rng.normal(0, 1, (batch, 3) + hw(size)).astype(np.float32),
                "im_info": rcnn_im_info(batch, size)}
        outs = [o.asnumpy() for o in model(*[mx.nd.array(feed[k]) for k in names])]
        ex = scored.bind(mx.cpu(), args=dict(args, **{k: mx.nd.array(v) for k, v in feed.items()}), grad_req="null")
        scored_outs = [o.asnumpy() for o in ex.forward(is_train=False)]
        assert all(np.array_equal(a, b) for a, b in zip(outs, scored_outs)), "output_score changed the outputs"
        tag = shape_tag(feed["data"].shape)
        case = {"inputs": {}, "shape": list(feed["data"].shape), "outputs": [],
                "rpn_scores": "%s-rpn_scores-%s.npy" % (name, tag),
                "mxnet_float32_error": float32_error(rpn, args, auxs, feed["data"], "classification")}
        np.save(os.path.join(out_dir, case["rpn_scores"]), scored_outs[-1])
        for k in names:
            case["inputs"][k] = "%s-%s-%s.npy" % (name, k, tag)
            np.save(os.path.join(out_dir, case["inputs"][k]), feed[k])
        for i, o in enumerate(outs):
            case["outputs"].append("%s-out%d-%s.npy" % (name, i, tag))
            np.save(os.path.join(out_dir, case["outputs"][-1]), o)
        entry["cases"].append(case)
    return entry


def export_tracker(name, cases, out_dir, tmp_dir):
    """GluonCV's SiamRPN in the form TRACKERS names, calibrated on its first case's inputs (a template
    and a search region, N(0, 1)); per case its two inputs and MXNet's two outputs. Compared as a
    classifier's outputs (task "tracking")."""
    seed = zlib.crc32(name.encode()) % (2 ** 31)
    rng = np.random.RandomState(seed)
    mx.random.seed(seed)
    from gluoncv import model_zoo
    config = TRACKERS[name]
    net = model_zoo.get_model("siamrpn_alexnet_v2_otb15", pretrained=False, bz=config["bz"],
                              is_train=config["is_train"])
    initialize(net)

    def inputs(batch, template, search):
        return {k: rng.normal(0, 1, (batch, 3, size, size)).astype(np.float32)
                for k, size in zip(TRACKER_INPUTS, (template, search))}

    calib = {k: mx.nd.array(v) for k, v in inputs(*cases[0]).items()}
    net.hybridize()
    net(*[calib[k] for k in TRACKER_INPUTS])
    net.export(os.path.join(tmp_dir, name))
    sym, args, auxs = mx.model.load_checkpoint(os.path.join(tmp_dir, name), 0)
    calibrate(sym, args, auxs, None, rng, inputs=calib)
    prefix = os.path.join(out_dir, name)
    mx.model.save_checkpoint(prefix, 0, sym, args, auxs)
    model = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", list(TRACKER_INPUTS), prefix + "-0000.params")
    model.hybridize()
    entry = {"name": name, "prefix": name, "task": task(name), "cases": [], "refused": []}
    for batch, template, search in cases:
        feed = inputs(batch, template, search)
        outs = [o.asnumpy() for o in model(*[mx.nd.array(feed[k]) for k in TRACKER_INPUTS])]
        tag = "%s-%s" % (shape_tag(feed["data0"].shape), shape_tag(feed["data1"].shape))
        case = {"inputs": {}, "shape": list(feed["data1"].shape), "outputs": [],
                "mxnet_float32_error": float32_error(sym, args, auxs, feed, "classification")}
        for k in TRACKER_INPUTS:
            case["inputs"][k] = "%s-%s-%s.npy" % (name, k, tag)
            np.save(os.path.join(out_dir, case["inputs"][k]), feed[k])
        for i, o in enumerate(outs):
            case["outputs"].append("%s-out%d-%s.npy" % (name, i, tag))
            np.save(os.path.join(out_dir, case["outputs"][-1]), o)
        entry["cases"].append(case)
    return entry


def text_init(key):
    """Embeddings N(0, 1), every RNN weight and bias U(-0.4, 0.4), the Dense layer Xavier."""
    return (mx.init.Normal(1.0) if "embed" in key else mx.init.Xavier() if ("dense" in key or "fc" in key) and
            key.endswith("weight") else mx.init.Uniform(0.1) if "dense" in key or "fc" in key else mx.init.Uniform(0.4))


def export_text(name, cases, out_dir, tmp_dir):
    """A TEXT or UNROLLED model with random weights: embeddings N(0, 1), every RNN weight and bias (biases
    too, so that their place in the packed vector is tested) U(-0.4, 0.4), the Dense layer Xavier. No
    calibration: the RNN's gates keep its outputs in (-1, 1). A model whose data input is typed (TEXT's
    "dtype") gets ids of that type, and MXNet runs on them."""
    seed = zlib.crc32(name.encode()) % (2 ** 31)
    rng = np.random.RandomState(seed)
    mx.random.seed(seed)
    config = dict(TEXT.get(name) or UNROLLED[name])
    dtype = config.pop("dtype", "float32")
    layout = config.get("layout", "NTC")

    def ids(batch, steps):
        shape = (batch, steps) if layout == "NTC" else (steps, batch)
        return rng.randint(0, TEXT_VOCAB, shape).astype(dtype)

    if config.get("cell") == "legacy_lstm":
        sym = legacy_unrolled_lstm(config["steps"])
        arg_shapes, _, _ = sym.infer_shape(data=(2, config["steps"]))
        args = {}
        for key, shape in zip(sym.list_arguments(), arg_shapes):
            if key != "data":
                args[key] = mx.nd.zeros(shape)
                text_init(key)._init_weight(key, args[key])  # biases too, as Gluon's initialize() does
        auxs = {}
    else:
        net = TextClassifier(**config) if name in TEXT else UnrolledText(**config)
        for key, p in net.collect_params().items():
            p.initialize(init=text_init(key))
        net.hybridize()
        net(mx.nd.array(ids(2, config.get("steps", 5)), dtype=dtype))
        net.export(os.path.join(tmp_dir, name))
        sym, args, auxs = mx.model.load_checkpoint(os.path.join(tmp_dir, name), 0)
    if dtype != "float32":  # the data variable declares its type, as mx.sym.var(name, dtype=...) writes it
        graph = json.loads(sym.tojson())
        data = next(n for n in graph["nodes"] if n["op"] == "null" and n["name"] == "data")
        data.setdefault("attrs", {})["__dtype__"] = str(mx.ndarray.ndarray._DTYPE_NP_TO_MX[np.dtype(dtype).type])
        sym = mx.sym.load_json(json.dumps(graph))
    prefix = os.path.join(out_dir, name)
    mx.model.save_checkpoint(prefix, 0, sym, args, auxs)
    model = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    model.hybridize()
    entry = {"name": name, "prefix": name, "task": "classification", "cases": [], "refused": []}
    for batch, steps in cases:
        x = ids(batch, steps)
        try:
            out = model(mx.nd.array(x, dtype=dtype)).asnumpy()
        except mx.base.MXNetError as e:  # an unrolled export takes its own T only
            entry["refused"].append({"shape": list(x.shape), "reason": str(e).strip().splitlines()[-1][:300]})
            continue
        assert out.dtype == np.float32
        tag = shape_tag(x.shape)
        case = {"input": "%s-in-%s.npy" % (name, tag), "shape": list(x.shape),
                "outputs": ["%s-out0-%s.npy" % (name, tag)],
                "mxnet_float32_error": float32_error(sym, args, auxs, x, entry["task"])}
        np.save(os.path.join(out_dir, case["input"]), x)
        np.save(os.path.join(out_dir, case["outputs"][0]), out)
        entry["cases"].append(case)
    return entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=["ci", "full"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*", help="models to make (default: the whole set)")
    a = ap.parse_args()
    everything = (CLASSIFIERS + DETECTORS + GLUONCV_RCNN + SYMBOLIC_DETECTORS + SYMBOLIC_DENSE + SEGMENTERS +
                  list(POSE) + GLUONCV_CLASSIFIERS + list(DEPTH) + list(VIDEO) + list(sequence_models.SEQUENCE_MODELS))
    plan = CI if a.set == "ci" else dict({n: full_cases(n) for n in everything}, **{n: TEXT_CASES for n in TEXT},
                                         **SYMBOLIC_RCNN, **UNROLLED_CASES,
                                         **{n: t["cases"] for n, t in TRACKERS.items()})
    if a.only:
        unknown = sorted(set(a.only) - set(plan))
        if unknown:
            sys.exit("not in the %s set: %s" % (a.set, ", ".join(unknown)))
        plan = {n: c for n, c in plan.items() if n in a.only}
    os.makedirs(a.out, exist_ok=True)
    models = []
    tmp_dir = tempfile.mkdtemp()
    for name, cases in plan.items():
        start = time.time()
        exporter = (sequence_models.export if name in sequence_models.SEQUENCE_MODELS else
                    export_text if name in TEXT or name in UNROLLED else export_rcnn if name in SYMBOLIC_RCNN else
                    export_tracker if name in TRACKERS else export)
        models.append(exporter(name, cases, a.out, tmp_dir))
        shutil.rmtree(tmp_dir)
        os.makedirs(tmp_dir)
        print("%-28s %d cases, %d refused by MXNet, %.1f s" %
              (name, len(models[-1]["cases"]), len(models[-1]["refused"]), time.time() - start), file=sys.stderr)
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump({"set": a.set, "mxnet": mx.__version__, "models": models}, f, indent=1)


if __name__ == "__main__":
    main()
