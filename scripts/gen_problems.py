#!/usr/bin/env python3
"""Generates every problems/<key>.json of gconv from the layer shapes of real networks.

Deterministic (fixed seeds, no network access, Python 3 standard library only):
running it twice writes identical files. `--check` compares instead of writing and exits 1
when a file is missing or differs.

Training-grade sets (forward_2d, bwd_data_2d, bwd_weight_2d, forward_3d, bwd_data_3d,
bwd_weight_3d) take the layers of the networks below at their standard input resolutions and
the training batch sizes (2D: 1..128 in powers of two, 3D: 1..16). The validation sets
(*_test_validation: small synthetic shapes; validation_holdout: real layers at resolutions
and batch sizes the training sets never use) share no shape with any training set; the
generator asserts that.
"""

import argparse
import json
import math
import os
import random
import sys

GENERATOR = "scripts/gen_problems.py"

TRAIN_BATCHES_2D = (1, 2, 4, 8, 16, 32, 64, 128)
TRAIN_BATCHES_3D = (1, 2, 4, 8, 16)
# Batch sizes no training set uses: every holdout shape is unseen by construction.
HOLDOUT_BATCHES_2D = (3, 6, 12, 24, 48, 96)
HOLDOUT_BATCHES_3D = (3, 6, 12)


# ---------------------------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------------------------

class Conv:
    """One convolution layer without its batch size. Spatial tuples are (d, h, w)."""

    def __init__(self, layer, c, k, g, size, f, s=(1, 1, 1), p=(0, 0, 0), d=(1, 1, 1), ndim=2):
        self.layer, self.c, self.k, self.g = layer, c, k, g
        self.size, self.f, self.s = tuple(size), tuple(f), tuple(s)
        self.p, self.d = tuple(p), tuple(d)
        self.ndim = ndim

    def out(self):
        return tuple(out_extent(i, f, s, p, d)
                     for i, f, s, p, d in zip(self.size, self.f, self.s, self.p, self.d))

    def problem(self, n, suffix=""):
        row = {"N": n, "C": self.c, "K": self.k, "G": self.g}
        names = ("d", "h", "w")
        if self.ndim == 3:
            row["Di"] = self.size[0]
        row["Hi"], row["Wi"] = self.size[1], self.size[2]
        if self.ndim == 3:
            row["Z"] = self.f[0]
        row["Y"], row["X"] = self.f[1], self.f[2]
        for field, values in (("stride", self.s), ("pad", self.p), ("dilation", self.d)):
            for axis, value in zip(names, values):
                if axis == "d" and self.ndim == 2:
                    continue
                row[field + "_" + axis] = value
        row["layer"] = "%s%s.b%d" % (self.layer, suffix, n)
        return row


def out_extent(i, f, s, p, d):
    return (i + 2 * p - ((f - 1) * d + 1)) // s + 1


def conv2d(layer, c, k, hw, kernel, stride=1, pad=None, dilation=1, groups=1):
    """A 2D conv; hw is (h, w) or an int, kernel/stride/pad/dilation ints or (h, w)."""
    hw = pair(hw)
    kernel, stride, dilation = pair(kernel), pair(stride), pair(dilation)
    if pad is None:
        pad = tuple(((kk - 1) * dd) // 2 for kk, dd in zip(kernel, dilation))
    pad = pair(pad)
    return Conv(layer, c, k, groups, (1,) + hw, (1,) + kernel, (1,) + stride, (0,) + pad,
                (1,) + dilation, ndim=2)


def conv3d(layer, c, k, dhw, kernel, stride=1, pad=None, groups=1):
    dhw, kernel, stride = triple(dhw), triple(kernel), triple(stride)
    if pad is None:
        pad = tuple((kk - 1) // 2 for kk in kernel)
    return Conv(layer, c, k, groups, dhw, kernel, stride, triple(pad), (1, 1, 1), ndim=3)


def pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def triple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v, v)


def hw_of(conv):
    return conv.out()[1:]


def pool(hw, kernel=3, stride=2, pad=1):
    return tuple(out_extent(i, kernel, stride, pad, 1) for i in pair(hw))


# --- ResNet / ResNeXt (torchvision definitions: stride on the 3x3 conv) ------------------------

def resnet(name, blocks, bottleneck, groups=1, width_per_group=64, res=224,
           dilate=(False, False, False)):
    """dilate[i] replaces the stride of layer i+2 by dilation (DeepLab's output stride)."""
    layers = []
    stem = conv2d(name + ".conv1", 3, 64, res, 7, 2, 3)
    layers.append(stem)
    hw = pool(hw_of(stem))
    c_in, dilation = 64, 1
    for stage, (planes, count) in enumerate(zip((64, 128, 256, 512), blocks)):
        stride = 1 if stage == 0 else 2
        previous_dilation = dilation
        if stage > 0 and dilate[stage - 1]:
            dilation *= stride
            stride = 1
        out_c = planes * 4 if bottleneck else planes
        width = int(planes * width_per_group / 64) * groups if bottleneck else planes
        for b in range(count):
            prefix = "%s.layer%d.%d" % (name, stage + 1, b)
            s = stride if b == 0 else 1
            dil = previous_dilation if b == 0 else dilation
            if bottleneck:
                layers.append(conv2d(prefix + ".conv1", c_in, width, hw, 1))
                c2 = conv2d(prefix + ".conv2", width, width, hw, 3, s, dil, dil, groups)
                layers.append(c2)
                out_hw = hw_of(c2)
                layers.append(conv2d(prefix + ".conv3", width, out_c, out_hw, 1))
            else:
                c1 = conv2d(prefix + ".conv1", c_in, planes, hw, 3, s, dil, dil)
                layers.append(c1)
                out_hw = hw_of(c1)
                layers.append(conv2d(prefix + ".conv2", planes, planes, out_hw, 3, 1, dilation,
                                     dilation))
            if b == 0 and (s != 1 or c_in != out_c):
                layers.append(conv2d(prefix + ".downsample.0", c_in, out_c, hw, 1, s, 0))
            c_in, hw = out_c, out_hw
    return layers, c_in, hw


def resnets(res=224):
    nets = []
    nets += resnet("resnet18", (2, 2, 2, 2), False, res=res)[0]
    nets += resnet("resnet50", (3, 4, 6, 3), True, res=res)[0]
    return nets


def resnexts(res=224):
    nets = []
    nets += resnet("resnext50_32x4d", (3, 4, 6, 3), True, 32, 4, res)[0]
    nets += resnet("resnext101_32x8d", (3, 4, 23, 3), True, 32, 8, res)[0]
    nets += resnet("resnext101_64x4d", (3, 4, 23, 3), True, 64, 4, res)[0]
    return nets


# --- RegNet (widths from the design-space parameters w0, wa, wm, depth, group width) ----------

REGNETS = {
    # name: (depth, w0, wa, wm, group_width)
    "regnet_x_400mf": (22, 24, 24.48, 2.54, 16),
    "regnet_x_800mf": (16, 56, 35.73, 2.28, 16),
    "regnet_x_1_6gf": (18, 80, 34.01, 2.25, 24),
    "regnet_x_3_2gf": (25, 88, 26.31, 2.25, 48),
    "regnet_y_400mf": (16, 48, 27.89, 2.09, 8),
    "regnet_y_800mf": (14, 56, 38.84, 2.4, 16),
    "regnet_y_1_6gf": (27, 48, 20.71, 2.65, 24),
    "regnet_y_3_2gf": (21, 80, 42.63, 2.66, 24),
}


def regnet_stages(depth, w0, wa, wm, group_width, quantum=8):
    widths = []
    for i in range(depth):
        exponent = round(math.log((w0 + wa * i) / w0) / math.log(wm))
        w = w0 * wm ** exponent
        widths.append(int(round(w / quantum) * quantum))
    stages = []
    for w in widths:
        if stages and stages[-1][0] == w:
            stages[-1][1] += 1
        else:
            stages.append([w, 1])
    out = []
    for w, count in stages:
        # Make each width a multiple of its group width, rounding halves up.
        gw = min(group_width, w)
        compatible = int(w + gw / 2) // gw * gw
        if compatible < 0.9 * w:
            compatible += gw
        out.append((compatible, count, gw))
    return out


def regnet(name, res=224):
    layers = []
    stem = conv2d(name + ".stem.0", 3, 32, res, 3, 2, 1)
    layers.append(stem)
    hw, c_in = hw_of(stem), 32
    for stage, (w, count, gw) in enumerate(regnet_stages(*REGNETS[name])):
        for b in range(count):
            prefix = "%s.trunk_output.block%d.block%d-%d" % (name, stage + 1, stage + 1, b)
            s = 2 if b == 0 else 1
            layers.append(conv2d(prefix + ".f.a", c_in, w, hw, 1))
            c2 = conv2d(prefix + ".f.b", w, w, hw, 3, s, 1, 1, w // gw)
            layers.append(c2)
            out_hw = hw_of(c2)
            layers.append(conv2d(prefix + ".f.c", w, w, out_hw, 1))
            if b == 0:
                layers.append(conv2d(prefix + ".proj", c_in, w, hw, 1, s, 0))
            c_in, hw = w, out_hw
    return layers


def regnets(res=224):
    return [conv for name in REGNETS for conv in regnet(name, res)]


# --- MobileNet v1 / v2 / v3 -------------------------------------------------------------------

def depthwise_separable(layers, prefix, c_in, c_out, hw, kernel=3, stride=1):
    dw = conv2d(prefix + ".dw", c_in, c_in, hw, kernel, stride, groups=c_in)
    layers.append(dw)
    out_hw = hw_of(dw)
    layers.append(conv2d(prefix + ".pw", c_in, c_out, out_hw, 1))
    return out_hw


def mobilenet_v1(res=224, alpha=1.0):
    name = "mobilenet_v1" if alpha == 1.0 else "mobilenet_v1_%g" % alpha
    ch = lambda c: int(c * alpha)
    stem = conv2d(name + ".conv0", 3, ch(32), res, 3, 2, 1)
    layers = [stem]
    hw, c_in = hw_of(stem), ch(32)
    plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + \
           [(1024, 2), (1024, 1)]
    for i, (c, s) in enumerate(plan):
        hw = depthwise_separable(layers, "%s.conv%d" % (name, i + 1), c_in, ch(c), hw, 3, s)
        c_in = ch(c)
    return layers


def inverted_residual(layers, prefix, c_in, hidden, c_out, hw, kernel, stride):
    if hidden != c_in:
        layers.append(conv2d(prefix + ".expand", c_in, hidden, hw, 1))
    dw = conv2d(prefix + ".dw", hidden, hidden, hw, kernel, stride, groups=hidden)
    layers.append(dw)
    out_hw = hw_of(dw)
    layers.append(conv2d(prefix + ".project", hidden, c_out, out_hw, 1))
    return out_hw


def mobilenet_v2(res=224):
    name = "mobilenet_v2"
    stem = conv2d(name + ".features.0", 3, 32, res, 3, 2, 1)
    layers = [stem]
    hw, c_in, index = hw_of(stem), 32, 1
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)):
        for b in range(n):
            hw = inverted_residual(layers, "%s.features.%d" % (name, index), c_in, c_in * t, c,
                                   hw, 3, s if b == 0 else 1)
            c_in, index = c, index + 1
    layers.append(conv2d("%s.features.%d" % (name, index), c_in, 1280, hw, 1))
    return layers


MOBILENET_V3 = {
    # (kernel, expanded, out, stride)
    "mobilenet_v3_large": ((3, 16, 16, 1), (3, 64, 24, 2), (3, 72, 24, 1), (5, 72, 40, 2),
                           (5, 120, 40, 1), (5, 120, 40, 1), (3, 240, 80, 2), (3, 200, 80, 1),
                           (3, 184, 80, 1), (3, 184, 80, 1), (3, 480, 112, 1), (3, 672, 112, 1),
                           (5, 672, 160, 2), (5, 960, 160, 1), (5, 960, 160, 1)),
    "mobilenet_v3_small": ((3, 16, 16, 2), (3, 72, 24, 2), (3, 88, 24, 1), (5, 96, 40, 2),
                           (5, 240, 40, 1), (5, 240, 40, 1), (5, 120, 48, 1), (5, 144, 48, 1),
                           (5, 288, 96, 2), (5, 576, 96, 1), (5, 576, 96, 1)),
}


def mobilenet_v3(name, res=224):
    stem = conv2d(name + ".features.0", 3, 16, res, 3, 2, 1)
    layers = [stem]
    hw, c_in = hw_of(stem), 16
    for i, (k, e, c, s) in enumerate(MOBILENET_V3[name]):
        hw = inverted_residual(layers, "%s.features.%d" % (name, i + 1), c_in, e, c, hw, k, s)
        c_in = c
    layers.append(conv2d("%s.features.%d" % (name, len(MOBILENET_V3[name]) + 1), c_in, 6 * c_in,
                         hw, 1))
    return layers


def mobilenets(res=224):
    return (mobilenet_v1(res) + mobilenet_v2(res) + mobilenet_v3("mobilenet_v3_large", res) +
            mobilenet_v3("mobilenet_v3_small", res))


# --- EfficientNet (compound scaling of the B0 MBConv plan) ------------------------------------

EFFICIENTNET_B0 = ((1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2),
                   (6, 3, 2, 40, 80, 3), (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4),
                   (6, 3, 1, 192, 320, 1))
EFFICIENTNETS = {"b0": (1.0, 1.0, 224), "b1": (1.0, 1.1, 240), "b2": (1.1, 1.2, 260),
                 "b3": (1.2, 1.4, 300), "b4": (1.4, 1.8, 380)}


def round_filters(c, width):
    scaled = c * width
    new = max(8, int(scaled + 4) // 8 * 8)
    if new < 0.9 * scaled:
        new += 8
    return new


def efficientnet(variant, res=None):
    width, depth, default_res = EFFICIENTNETS[variant]
    res = res or default_res
    name = "efficientnet_" + variant
    stem_c = round_filters(32, width)
    stem = conv2d(name + ".features.0", 3, stem_c, res, 3, 2, 1)
    layers = [stem]
    hw, c_in = hw_of(stem), stem_c
    for stage, (t, k, s, _, c, n) in enumerate(EFFICIENTNET_B0):
        c_out = round_filters(c, width)
        for b in range(int(math.ceil(n * depth))):
            hw = inverted_residual(layers, "%s.features.%d.%d" % (name, stage + 1, b), c_in,
                                   c_in * t, c_out, hw, k, s if b == 0 else 1)
            c_in = c_out
    layers.append(conv2d("%s.features.8" % name, c_in, round_filters(1280, width), hw, 1))
    return layers


def efficientnets(scale=1.0):
    out = []
    for v, (_, _, r) in EFFICIENTNETS.items():
        out += efficientnet(v, int(r * scale))
    return out


# --- ConvNeXt (patchify stem, dw 7x7, inverted MLP as 1x1 convs, 2x2 s2 downsampling) -----------

CONVNEXTS = {"convnext_tiny": ((3, 3, 9, 3), (96, 192, 384, 768)),
             "convnext_small": ((3, 3, 27, 3), (96, 192, 384, 768)),
             "convnext_base": ((3, 3, 27, 3), (128, 256, 512, 1024))}


def convnext(name, res=224):
    depths, dims = CONVNEXTS[name]
    stem = conv2d(name + ".features.0", 3, dims[0], res, 4, 4, 0)
    layers = [stem]
    hw = hw_of(stem)
    for stage, (n, c) in enumerate(zip(depths, dims)):
        if stage > 0:
            down = conv2d("%s.features.%d.1" % (name, 2 * stage), dims[stage - 1], c, hw, 2, 2, 0)
            layers.append(down)
            hw = hw_of(down)
        for b in range(n):
            prefix = "%s.features.%d.%d" % (name, 2 * stage + 1, b)
            layers.append(conv2d(prefix + ".dwconv", c, c, hw, 7, 1, 3, groups=c))
            layers.append(conv2d(prefix + ".pwconv1", c, 4 * c, hw, 1))
            layers.append(conv2d(prefix + ".pwconv2", 4 * c, c, hw, 1))
    return layers


def convnexts(res=224):
    return [conv for name in CONVNEXTS for conv in convnext(name, res)]


# --- ShuffleNet v2 ---------------------------------------------------------------------------

SHUFFLENETS = {"x0_5": (48, 96, 192, 1024), "x1_0": (116, 232, 464, 1024),
               "x1_5": (176, 352, 704, 1024), "x2_0": (244, 488, 976, 2048)}


def shufflenet_v2(width, res=224):
    name = "shufflenet_v2_" + width
    stages = SHUFFLENETS[width]
    stem = conv2d(name + ".conv1", 3, 24, res, 3, 2, 1)
    layers = [stem]
    hw, c_in = pool(hw_of(stem)), 24
    for stage, (c, n) in enumerate(zip(stages[:3], (4, 8, 4))):
        half = c // 2
        for b in range(n):
            prefix = "%s.stage%d.%d" % (name, stage + 2, b)
            if b == 0:
                layers.append(conv2d(prefix + ".branch1.0", c_in, c_in, hw, 3, 2, 1, groups=c_in))
                out_hw = pool(hw, 3, 2, 1)
                layers.append(conv2d(prefix + ".branch1.2", c_in, half, out_hw, 1))
                layers.append(conv2d(prefix + ".branch2.0", c_in, half, hw, 1))
                layers.append(conv2d(prefix + ".branch2.3", half, half, hw, 3, 2, 1, groups=half))
                hw = out_hw
            else:
                layers.append(conv2d(prefix + ".branch2.0", half, half, hw, 1))
                layers.append(conv2d(prefix + ".branch2.3", half, half, hw, 3, 1, 1, groups=half))
            layers.append(conv2d(prefix + ".branch2.5", half, half, hw, 1))
        c_in = c
    layers.append(conv2d(name + ".conv5", c_in, stages[3], hw, 1))
    return layers


def shufflenets(res=224):
    return [conv for w in SHUFFLENETS for conv in shufflenet_v2(w, res)]


# --- Xception (299x299; separable convs = dw 3x3 + pw 1x1) --------------------------------------

def xception(res=299):
    name = "xception"
    c1 = conv2d(name + ".conv1", 3, 32, res, 3, 2, 0)
    c2 = conv2d(name + ".conv2", 32, 64, hw_of(c1), 3, 1, 0)
    layers = [c1, c2]
    hw, c_in = hw_of(c2), 64

    def sep(prefix, a, b, at):
        layers.append(conv2d(prefix + ".conv1", a, a, at, 3, 1, 1, groups=a))
        layers.append(conv2d(prefix + ".pointwise", a, b, at, 1))

    for block, (c_mid, c_out) in enumerate(((128, 128), (256, 256), (728, 728))):
        prefix = "%s.block%d" % (name, block + 1)
        sep(prefix + ".sep1", c_in, c_mid, hw)
        sep(prefix + ".sep2", c_mid, c_out, hw)
        skip = conv2d(prefix + ".skip", c_in, c_out, hw, 1, 2, 0)
        layers.append(skip)
        hw, c_in = hw_of(skip), c_out
    for block in range(4, 12):
        for i in range(3):
            sep("%s.block%d.sep%d" % (name, block, i + 1), 728, 728, hw)
    sep(name + ".block12.sep1", 728, 728, hw)
    sep(name + ".block12.sep2", 728, 1024, hw)
    skip = conv2d(name + ".block12.skip", 728, 1024, hw, 1, 2, 0)
    layers.append(skip)
    hw = hw_of(skip)
    sep(name + ".conv3", 1024, 1536, hw)
    sep(name + ".conv4", 1536, 2048, hw)
    return layers


# --- DeepLab v3 (dilated ResNet backbone + ASPP) -----------------------------------------------

def deeplab_v3(backbone, output_stride, res=513):
    blocks = (3, 4, 6, 3) if backbone == "resnet50" else (3, 4, 23, 3)
    dilate = (False, True, True) if output_stride == 8 else (False, False, True)
    name = "deeplabv3_%s_os%d" % (backbone, output_stride)
    layers, c_in, hw = resnet(name + ".backbone", blocks, True, res=res, dilate=dilate)
    rates = (12, 24, 36) if output_stride == 8 else (6, 12, 18)
    layers.append(conv2d(name + ".aspp.0", c_in, 256, hw, 1))
    for i, rate in enumerate(rates):
        layers.append(conv2d("%s.aspp.%d" % (name, i + 1), c_in, 256, hw, 3, 1, rate, rate))
    layers.append(conv2d(name + ".aspp.project", 5 * 256, 256, hw, 1))
    layers.append(conv2d(name + ".head.0", 256, 256, hw, 3, 1, 1))
    return layers


def deeplabs(res=513):
    return (deeplab_v3("resnet50", 16, res) + deeplab_v3("resnet50", 8, res) +
            deeplab_v3("resnet101", 16, res))


# --- 3D: X3D -----------------------------------------------------------------------------------

X3DS = {"x3d_xs": (4, 160), "x3d_s": (13, 160), "x3d_m": (16, 224)}


def x3d(name, frames=None, res=None):
    default_frames, default_res = X3DS[name]
    t, res = frames or default_frames, res or default_res
    stem_xy = conv3d(name + ".stem.conv_xy", 3, 24, (t, res, res), (1, 3, 3), (1, 2, 2))
    dhw = stem_xy.out()
    layers = [stem_xy, conv3d(name + ".stem.conv_t", 24, 24, dhw, (5, 1, 1), 1, groups=24)]
    c_in = 24
    for stage, (c, n) in enumerate(zip((24, 48, 96, 192), (3, 5, 11, 7))):
        inner = int(2.25 * c)
        for b in range(n):
            prefix = "%s.res%d.%d" % (name, stage + 2, b)
            s = (1, 2, 2) if b == 0 else 1
            layers.append(conv3d(prefix + ".branch2.conv_a", c_in, inner, dhw, 1))
            dw = conv3d(prefix + ".branch2.conv_b", inner, inner, dhw, 3, s, groups=inner)
            layers.append(dw)
            layers.append(conv3d(prefix + ".branch2.conv_c", inner, c, dw.out(), 1))
            if b == 0:
                layers.append(conv3d(prefix + ".branch1_conv", c_in, c, dhw, 1, s, 0))
            c_in, dhw = c, dw.out()
    layers.append(conv3d(name + ".head.pre_conv", c_in, 432, dhw, 1))
    return layers


# --- 3D: ir-CSN-152 (channel-separated: dw 3x3x3 in every bottleneck) -------------------------

def ir_csn_152(frames=8, res=224):
    name = "ir_csn_152"
    stem = conv3d(name + ".stem", 3, 64, (frames, res, res), (3, 7, 7), (1, 2, 2), (1, 3, 3))
    d, h, w = stem.out()
    dhw = (d, pool(h)[0], pool(w)[0])
    layers = [stem]
    c_in = 64
    for stage, (width, n) in enumerate(zip((64, 128, 256, 512), (3, 8, 36, 3))):
        for b in range(n):
            prefix = "%s.layer%d.%d" % (name, stage + 1, b)
            s = 2 if b == 0 and stage > 0 else 1
            layers.append(conv3d(prefix + ".conv1", c_in, width, dhw, 1))
            dw = conv3d(prefix + ".conv2", width, width, dhw, 3, s, groups=width)
            layers.append(dw)
            layers.append(conv3d(prefix + ".conv3", width, 4 * width, dw.out(), 1))
            if b == 0:
                layers.append(conv3d(prefix + ".downsample", c_in, 4 * width, dhw, 1, s, 0))
            c_in, dhw = 4 * width, dw.out()
    return layers


# --- 3D: R(2+1)D-18 (1x3x3 spatial then 3x1x1 temporal factorisation) --------------------------

def r2plus1d_18(frames=16, res=112):
    name = "r2plus1d_18"
    s0 = conv3d(name + ".stem.0", 3, 45, (frames, res, res), (1, 7, 7), (1, 2, 2), (0, 3, 3))
    s1 = conv3d(name + ".stem.3", 45, 64, s0.out(), (3, 1, 1), 1, (1, 0, 0))
    layers = [s0, s1]
    dhw, c_in = s1.out(), 64

    def factorised(prefix, a, b, at, stride):
        mid = (a * b * 27) // (a * 9 + 3 * b)
        xy = conv3d(prefix + ".0", a, mid, at, (1, 3, 3), (1, stride, stride), (0, 1, 1))
        t = conv3d(prefix + ".3", mid, b, xy.out(), (3, 1, 1), (stride, 1, 1), (1, 0, 0))
        layers.extend([xy, t])
        return t.out()

    for stage, planes in enumerate((64, 128, 256, 512)):
        for b in range(2):
            prefix = "%s.layer%d.%d" % (name, stage + 1, b)
            s = 2 if b == 0 and stage > 0 else 1
            out = factorised(prefix + ".conv1.0", c_in, planes, dhw, s)
            factorised(prefix + ".conv2.0", planes, planes, out, 1)
            if s != 1:
                layers.append(conv3d(prefix + ".downsample.0", c_in, planes, dhw, 1, 2, 0))
            c_in, dhw = planes, out
    return layers


# --- 3D: I3D (Inception-v1 inflated to 3x3x3 / 1x1x1) -----------------------------------------

I3D_MIXED = (  # name, (b0, b1 reduce, b1, b2 reduce, b2, b3 pool proj)
    ("Mixed_3b", (64, 96, 128, 16, 32, 32)), ("Mixed_3c", (128, 128, 192, 32, 96, 64)),
    ("Mixed_4b", (192, 96, 208, 16, 48, 64)), ("Mixed_4c", (160, 112, 224, 24, 64, 64)),
    ("Mixed_4d", (128, 128, 256, 24, 64, 64)), ("Mixed_4e", (112, 144, 288, 32, 64, 64)),
    ("Mixed_4f", (256, 160, 320, 32, 128, 128)), ("Mixed_5b", (256, 160, 320, 32, 128, 128)),
    ("Mixed_5c", (384, 192, 384, 48, 128, 128)))


def i3d(frames=16, res=224):
    name = "i3d"
    c1 = conv3d(name + ".Conv3d_1a_7x7", 3, 64, (frames, res, res), 7, 2, 3)
    d, h, w = c1.out()
    dhw = (d, pool(h)[0], pool(w)[0])
    layers = [c1, conv3d(name + ".Conv3d_2b_1x1", 64, 64, dhw, 1),
              conv3d(name + ".Conv3d_2c_3x3", 64, 192, dhw, 3)]
    dhw = (dhw[0], pool(dhw[1])[0], pool(dhw[2])[0])
    c_in = 192
    for mixed, (b0, b1r, b1, b2r, b2, b3) in I3D_MIXED:
        if mixed == "Mixed_4b":
            dhw = tuple(out_extent(i, 3, 2, 1, 1) for i in dhw)
        if mixed == "Mixed_5b":
            dhw = tuple(out_extent(i, 2, 2, 0, 1) for i in dhw)
        prefix = "%s.%s" % (name, mixed)
        layers += [conv3d(prefix + ".b0", c_in, b0, dhw, 1),
                   conv3d(prefix + ".b1a", c_in, b1r, dhw, 1),
                   conv3d(prefix + ".b1b", b1r, b1, dhw, 3),
                   conv3d(prefix + ".b2a", c_in, b2r, dhw, 1),
                   conv3d(prefix + ".b2b", b2r, b2, dhw, 3),
                   conv3d(prefix + ".b3b", c_in, b3, dhw, 1)]
        c_in = b0 + b1 + b2 + b3
    return layers


# --- 3D: SlowFast R50 (slow: T frames, 1x3x3 convs; fast: 8T frames, 3x1x1 convs) ----------------

def slowfast_r50(slow_frames=4, res=224, alpha=8, beta_inv=8):
    name = "slowfast_r50_%dx%d" % (slow_frames, 64 // slow_frames)
    fast_frames = slow_frames * alpha
    slow = conv3d(name + ".slow.conv1", 3, 64, (slow_frames, res, res), (1, 7, 7), (1, 2, 2),
                  (0, 3, 3))
    fast = conv3d(name + ".fast.conv1", 3, 64 // beta_inv, (fast_frames, res, res), (5, 7, 7),
                  (1, 2, 2), (2, 3, 3))
    layers = [slow, fast]
    hw = pool(hw_of(slow))
    slow_dhw, fast_dhw = (slow_frames,) + hw, (fast_frames,) + hw
    slow_in, fast_in = 64, 64 // beta_inv

    def lateral(label, c_fast):
        layers.append(conv3d("%s.fuse_%s" % (name, label), c_fast, 2 * c_fast, fast_dhw,
                             (5, 1, 1), (alpha, 1, 1), (2, 0, 0)))
        return 2 * c_fast

    slow_in += lateral("pool1", fast_in)
    for stage, (planes, n) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3))):
        slow_t = 3 if stage >= 2 else 1  # slow path is temporal only in res4 and res5
        fast_planes = planes // beta_inv
        for path, t_kernel, width in (("slow", slow_t, planes), ("fast", 3, fast_planes)):
            dhw = slow_dhw if path == "slow" else fast_dhw
            c_in = slow_in if path == "slow" else fast_in
            for b in range(n):
                prefix = "%s.%s.res%d.%d" % (name, path, stage + 2, b)
                s = (1, 2, 2) if b == 0 and stage > 0 else 1
                layers.append(conv3d(prefix + ".conv_a", c_in, width, dhw, (t_kernel, 1, 1)))
                c_b = conv3d(prefix + ".conv_b", width, width, dhw, (1, 3, 3), s)
                layers.append(c_b)
                layers.append(conv3d(prefix + ".conv_c", width, 4 * width, c_b.out(), 1))
                if b == 0:
                    layers.append(conv3d(prefix + ".shortcut", c_in, 4 * width, dhw, 1, s, 0))
                c_in, dhw = 4 * width, c_b.out()
            if path == "slow":
                slow_dhw, slow_in = dhw, c_in
            else:
                fast_dhw, fast_in = dhw, c_in
        if stage < 3:
            slow_in += lateral("res%d" % (stage + 2), fast_in)
    return layers


# --- 3D: U-Net (3x3x3 double convs, 2x2x2 pooling) ---------------------------------------------

def unet3d(res=64, in_channels=1, classes=3):
    name = "unet3d_%d" % res
    layers = []
    c_in, size, skips = in_channels, res, []
    for level, c in enumerate((32, 64, 128, 256)):
        prefix = "%s.encoder%d" % (name, level + 1)
        layers.append(conv3d(prefix + ".conv1", c_in, c, size, 3))
        layers.append(conv3d(prefix + ".conv2", c, 2 * c, size, 3))
        skips.append((2 * c, size))
        c_in = 2 * c
        if level < 3:
            size //= 2
    skips.pop()
    for level, c in enumerate((256, 128, 64)):
        skip_c, size = skips.pop()
        prefix = "%s.decoder%d" % (name, level + 1)
        layers.append(conv3d(prefix + ".conv1", c_in + skip_c, c, size, 3))
        layers.append(conv3d(prefix + ".conv2", c, c, size, 3))
        c_in = c
    layers.append(conv3d(name + ".head", c_in, classes, size, 1))
    return layers


# ---------------------------------------------------------------------------------------------
# Sets
# ---------------------------------------------------------------------------------------------

def networks_2d():
    """(family, layers, {direction: batch sizes}). Forward covers inference and training
    batches; backward passes only happen in training, at larger batches, and weight gradients
    (which reduce over the batch) lean to the largest ones. The lists trade coverage against
    set size."""
    return [
        ("resnet", resnets(), {"forward": (1, 2, 4, 8, 16, 32, 64, 128),
                               "bwd_data": (2, 8, 16, 32, 64, 128),
                               "bwd_weight": (4, 16, 32, 64, 128)}),
        ("resnext", resnexts(), {"forward": (1, 4, 16, 64, 128),
                                 "bwd_data": (8, 16, 32, 64),
                                 "bwd_weight": (16, 32, 64, 128)}),
        ("regnet", regnets(), {"forward": (1, 32, 128),
                               "bwd_data": (16, 64, 128),
                               "bwd_weight": (32, 64, 128)}),
        ("mobilenet", mobilenets(), {"forward": (1, 16, 64, 128),
                                     "bwd_data": (8, 32, 128),
                                     "bwd_weight": (16, 64, 128)}),
        ("efficientnet", efficientnets(), {"forward": (1, 16),
                                           "bwd_data": (16, 64),
                                           "bwd_weight": (8, 32)}),
        ("convnext", convnexts(), {"forward": (1, 16, 64),
                                   "bwd_data": (8, 32, 128),
                                   "bwd_weight": (32, 128)}),
        ("shufflenet", shufflenets(), {"forward": (1, 64),
                                       "bwd_data": (16, 64),
                                       "bwd_weight": (64, 128)}),
        ("xception", xception(), {"forward": (1, 8, 32),
                                  "bwd_data": (4, 16),
                                  "bwd_weight": (16, 32)}),
        ("deeplab", deeplabs(), {"forward": (1, 2, 8),
                                 "bwd_data": (4, 8),
                                 "bwd_weight": (8, 16)}),
    ]


def networks_3d():
    return [
        ("x3d", x3d("x3d_xs") + x3d("x3d_s") + x3d("x3d_m"),
         {"forward": (1, 4, 16), "bwd_data": (8, 16), "bwd_weight": (8, 16)}),
        ("csn", ir_csn_152(), {"forward": (1, 4, 8), "bwd_data": (4, 8), "bwd_weight": (8, 16)}),
        ("r2plus1d", r2plus1d_18(),
         {"forward": (1, 4, 16), "bwd_data": (8, 16), "bwd_weight": (4, 16)}),
        ("i3d", i3d(), {"forward": (1, 2, 8), "bwd_data": (4, 8), "bwd_weight": (4, 8)}),
        ("slowfast", slowfast_r50(4) + slowfast_r50(8),
         {"forward": (1, 4), "bwd_data": (8,), "bwd_weight": (8, 16)}),
        ("unet3d", unet3d(64), {"forward": (1, 2), "bwd_data": (2, 4), "bwd_weight": (2, 4)}),
    ]


def flatten(layers):
    out = []
    for item in layers:
        out.extend(flatten(item) if isinstance(item, list) else [item])
    return out


def shape_key(row):
    """Mirrors Problem::key(): every size field, layer excluded."""
    ndim = 3 if "Di" in row else 2
    get = lambda k, default: row.get(k, default)
    return (ndim, row["N"], row["C"], row["K"], row["G"], get("Di", 1), row["Hi"], row["Wi"],
            get("Z", 1), row["Y"], row["X"],
            get("stride_d", 1), row["stride_h"], row["stride_w"],
            get("pad_d", 0), row["pad_h"], row["pad_w"],
            get("dilation_d", 1), row["dilation_h"], row["dilation_w"])


def check_problem(row, where):
    """The same rules as gconv's validate(); a generated shape that breaks one is a bug here."""
    ndim, n, c, k, g, di, hi, wi, z, y, x, sd, sh, sw, pd, ph, pw, dd, dh, dw = shape_key(row)
    assert min(n, c, k, g, di, hi, wi, z, y, x, sd, sh, sw, dd, dh, dw) >= 1, where
    assert min(pd, ph, pw) >= 0, where
    assert c % g == 0 and k % g == 0, where
    for i, f, p, d in ((di, z, pd, dd), (hi, y, ph, dh), (wi, x, pw, dw)):
        assert (f - 1) * d + 1 <= i + 2 * p, "%s: the dilated filter does not fit" % where


def rows_for(networks, direction):
    """Every layer at every batch size of its family, deduplicated by shape (first name wins)."""
    rows, seen = [], set()
    for _family, layers, batches in networks:
        for conv in flatten(layers):
            # No network computes the data gradient of its input image.
            if direction == "bwd_data" and conv.c == 3:
                continue
            for n in batches[direction]:
                row = conv.problem(n)
                key = shape_key(row)
                if key not in seen:
                    seen.add(key)
                    rows.append(row)
    return rows


FAMILIES_2D = ("ResNet-18/50, ResNeXt-50 32x4d / 101 32x8d / 101 64x4d, RegNetX/Y 400MF..3.2GF, "
               "MobileNet v1/v2/v3, EfficientNet-B0..B4, ConvNeXt-T/S/B, ShuffleNet v2, Xception, "
               "DeepLab v3")
FAMILIES_3D = "X3D-XS/S/M, ir-CSN-152, R(2+1)D-18, I3D, SlowFast R50, 3D U-Net"
DIRECTION_WORDS = {"forward": "Forward", "bwd_data": "Backward-data",
                   "bwd_weight": "Backward-weight"}


def training_sets():
    """key -> (direction, description, rows)."""
    sets = {}
    for direction, words in DIRECTION_WORDS.items():
        for suffix, families, networks, allowed in (
                ("_2d", FAMILIES_2D, networks_2d(), TRAIN_BATCHES_2D),
                ("_3d", FAMILIES_3D, networks_3d(), TRAIN_BATCHES_3D)):
            batches = sorted({n for _f, _l, b in networks for n in b[direction]})
            assert set(batches) <= set(allowed), "%s%s: batch outside %s" % (direction, suffix,
                                                                              allowed)
            description = "%s %s training-grade shapes: %s at their standard resolutions; " \
                          "batch sizes %s" % (words, suffix[1:].upper(), families,
                                              "/".join(map(str, batches)))
            sets[direction + suffix] = (direction, description, rows_for(networks, direction))
    return sets


# --- small validation shapes ---------------------------------------------------------------------

def validation_templates_2d():
    """Quick shapes covering the awkward cases: odd sizes, stride 2, pads, dilation, channel
    tails off multiples of 8/16/32, depthwise, G = 1, C/G in {1, 3, 4, 8, 16, 24, 64}."""
    t = []
    add = lambda name, c, k, g, hw, kernel, stride=1, pad=None, dil=1: t.append(
        conv2d("synthetic." + name, c, k, hw, kernel, stride, pad, dil, g))
    add("dense_3x3_odd", 24, 40, 1, 15, 3)
    add("dense_3x3_s2_pad", 64, 96, 1, 17, 3, 2, 1)
    add("dense_1x1_tail", 37, 53, 1, 9, 1, 1, 0)
    add("dense_7x7_s2_stem", 3, 24, 1, 33, 7, 2, 3)
    add("dense_5x5_nopad", 16, 16, 1, 13, 5, 1, 0)
    add("dense_3x3_dil2", 32, 48, 1, 19, 3, 1, 2, 2)
    add("dense_3x3_dil3_pad1", 8, 8, 1, 21, 3, 1, 1, 3)
    add("dw_3x3", 72, 72, 72, 14, 3)
    add("dw_3x3_s2_odd", 96, 96, 96, 15, 3, 2, 1)
    add("dw_5x5_s2", 40, 40, 40, 23, 5, 2, 2)
    add("dw_7x7", 48, 48, 48, 11, 7, 1, 3)
    add("dw_3x3_dil2", 56, 56, 56, 13, 3, 1, 2, 2)
    add("grouped_cpg3_3x3", 24, 24, 8, 12, 3)
    add("grouped_cpg4_3x3_s2", 64, 64, 16, 11, 3, 2, 1)
    add("grouped_cpg8_3x3", 64, 128, 8, 9, 3)
    add("grouped_cpg16_3x3_kpg12", 80, 60, 5, 10, 3)
    add("grouped_cpg24_3x3_s2", 96, 96, 4, 19, 3, 2, 1)
    add("grouped_cpg64_3x3", 128, 128, 2, 7, 3)
    add("grouped_cpg16_1x1", 64, 48, 4, 8, 1, 1, 0)
    add("grouped_cpg3_5x5_pad2", 12, 36, 4, 9, 5, 1, 2)
    add("asym_3x5_rect", 16, 24, 1, (9, 14), (3, 5), 1, (1, 2))
    add("rect_s2x1", 32, 32, 2, (12, 7), 3, (2, 1), 1)
    return t


def validation_templates_3d():
    t = []
    add = lambda name, c, k, g, dhw, kernel, stride=1, pad=None: t.append(
        conv3d("synthetic3d." + name, c, k, dhw, kernel, stride, pad, g))
    add("dense_3x3x3_odd", 16, 24, 1, (5, 9, 9), 3)
    add("dense_3x3x3_s2", 24, 32, 1, (6, 11, 11), 3, 2, 1)
    add("dense_1x1x1_tail", 37, 45, 1, (4, 7, 7), 1, 1, 0)
    add("dense_1x3x3", 32, 48, 1, (4, 13, 13), (1, 3, 3), 1, (0, 1, 1))
    add("dense_3x1x1", 48, 32, 1, (8, 7, 7), (3, 1, 1), 1, (1, 0, 0))
    add("dense_1x7x7_s122_stem", 3, 16, 1, (4, 23, 23), (1, 7, 7), (1, 2, 2), (0, 3, 3))
    add("dw_3x3x3", 54, 54, 54, (4, 14, 14), 3)
    add("dw_3x3x3_s122", 72, 72, 72, (5, 15, 15), 3, (1, 2, 2), 1)
    add("dw_5x1x1", 24, 24, 24, (7, 9, 9), (5, 1, 1), 1, (2, 0, 0))
    add("grouped_cpg3_3x3x3", 24, 24, 8, (3, 9, 9), 3)
    add("grouped_cpg4_3x3x3", 32, 64, 8, (4, 8, 8), 3)
    add("grouped_cpg8_3x3x3_s2", 64, 64, 8, (5, 10, 10), 3, 2, 1)
    add("grouped_cpg16_3x3x3", 48, 48, 3, (3, 7, 7), 3)
    add("grouped_cpg24_3x3x3_nopad", 48, 48, 2, (5, 9, 9), 3, 1, 0)
    add("grouped_cpg64_1x1x1", 128, 128, 2, (2, 6, 6), 1, 1, 0)
    add("grouped_cpg1_3x3x3", 8, 16, 8, (6, 6, 6), 3)
    return t


def validation_rows(templates, direction_index, batch_cycle=(1, 2, 3, 4)):
    rows = []
    for i, conv in enumerate(templates):
        n = batch_cycle[(i + direction_index) % len(batch_cycle)]
        rows.append(conv.problem(n))
    return rows


# --- holdout -----------------------------------------------------------------------------------

def holdout_rows(rng):
    """250 2D + 50 3D forward shapes: real layers at resolutions (and batch sizes) that the
    training sets never use."""
    pool_2d = [
        ("resnet", resnets(256) + resnets(320)),
        ("resnext", resnexts(288)),
        ("regnet", regnets(256)),
        ("mobilenet", mobilenets(192) + mobilenets(256)),
        ("efficientnet", efficientnets(1.15)),
        ("convnext", convnexts(288)),
        ("shufflenet", shufflenets(256)),
        ("xception", xception(331)),
        ("deeplab", deeplabs(385)),
    ]
    pool_3d = [
        ("x3d", x3d("x3d_s", 10, 176) + x3d("x3d_m", 12, 192)),
        ("csn", ir_csn_152(12, 160)),
        ("r2plus1d", r2plus1d_18(12, 128)),
        ("i3d", i3d(12, 160)),
        ("slowfast", slowfast_r50(6, 192)),
        ("unet3d", unet3d(48)),
    ]
    assert not set(HOLDOUT_BATCHES_2D) & set(TRAIN_BATCHES_2D + TRAIN_BATCHES_3D)
    assert not set(HOLDOUT_BATCHES_3D) & set(TRAIN_BATCHES_2D + TRAIN_BATCHES_3D)
    rows_2d = sample_per_family(pool_2d, HOLDOUT_BATCHES_2D, 250, rng)
    rows_3d = sample_per_family(pool_3d, HOLDOUT_BATCHES_3D, 50, rng)
    return rows_2d + rows_3d


def sample_per_family(pool_by_family, batches, total, rng):
    """Draws `total` distinct shapes, spread evenly over the families."""
    candidates = []
    for family, layers in pool_by_family:
        seen, unique = set(), []
        for conv in flatten(layers):
            for n in batches:
                row = conv.problem(n)
                key = shape_key(row)
                if key not in seen:
                    seen.add(key)
                    unique.append(row)
        rng.shuffle(unique)
        candidates.append(unique)
    chosen, taken, index = [], set(), 0
    while len(chosen) < total:
        progressed = False
        for family_rows in candidates:
            if index < len(family_rows) and len(chosen) < total:
                row = family_rows[index]
                key = shape_key(row)
                if key not in taken:
                    taken.add(key)
                    chosen.append(row)
                progressed = True
        if not progressed:
            raise SystemExit("gen_problems: not enough holdout candidates for %d shapes" % total)
        index += 1
    return chosen


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------

def all_sets():
    sets = training_sets()
    training_keys = set()
    for _direction, _description, rows in sets.values():
        training_keys.update(shape_key(r) for r in rows)

    for di, direction in enumerate(("forward", "bwd_data", "bwd_weight")):
        sets[direction + "_2d_test_validation"] = (
            direction, "Small quick 2D %s shapes for smoke tests: odd sizes, stride 2, pads, "
            "dilation, channel tails, depthwise, G = 1, C/G in 1..64; unseen by training sets"
            % direction, validation_rows(validation_templates_2d(), di))
        sets[direction + "_3d_test_validation"] = (
            direction, "Small quick 3D %s shapes for smoke tests: odd sizes, stride 2, "
            "factorised and depthwise filters, channel tails; unseen by training sets"
            % direction, validation_rows(validation_templates_3d(), di))
    sets["validation_holdout"] = (
        "forward", "300 forward shapes (250 2D + 50 3D) from the same networks at resolutions "
        "and batch sizes no training set uses", holdout_rows(random.Random(20260511)))

    for key, (_direction, _description, rows) in sets.items():
        keys = [shape_key(r) for r in rows]
        assert len(keys) == len(set(keys)), "%s: duplicate shapes" % key
        for i, row in enumerate(rows):
            check_problem(row, "%s[%d] %s" % (key, i, row["layer"]))
        if "validation" in key:
            overlap = training_keys.intersection(keys)
            assert not overlap, "%s shares %d shapes with the training sets" % (key, len(overlap))
    holdout = sets["validation_holdout"][2]
    assert sum(1 for r in holdout if "Di" not in r) == 250
    assert sum(1 for r in holdout if "Di" in r) == 50
    return sets


def render(key, direction, description, rows):
    lines = ["{",
             '  "key": %s,' % json.dumps(key),
             '  "direction": %s,' % json.dumps(direction),
             '  "description": %s,' % json.dumps(description),
             '  "generator": %s,' % json.dumps(GENERATOR),
             '  "problems": [']
    body = [json.dumps(row, separators=(", ", ": ")) for row in rows]
    lines += ["    " + text + ("," if i + 1 < len(body) else "") for i, text in enumerate(body)]
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(here, "..", "problems"),
                        help="directory for the <key>.json files (default: problems/)")
    parser.add_argument("--check", action="store_true",
                        help="only compare with the files on disk; exit 1 if any differs")
    args = parser.parse_args()

    stale = []
    for key, (direction, description, rows) in sorted(all_sets().items()):
        text = render(key, direction, description, rows)
        path = os.path.join(args.out, key + ".json")
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(path)
            except OSError:
                stale.append(path)
            continue
        os.makedirs(args.out, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print("%-28s %-10s %5d problems" % (key, direction, len(rows)))
    if stale:
        print("gen_problems: out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
