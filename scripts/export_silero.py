#!/usr/bin/env python3
"""Exports the 16 kHz weights of Silero VAD v6 from its ONNX file for Parley's Swift network.

usage: export_silero.py silero_vad.onnx OUTPUT.weights

Output format (little-endian): the magic bytes "PSVW", u32 format version (1), u32 tensor
count, then per tensor: u16 name length, the UTF-8 name, u8 rank, rank x u32 dimensions,
float32 data in row-major order. Tensor names (shapes):
  stft.basis (258, 1, 256)               STFT as a convolution: 129 real rows, then 129 imaginary
  encoder.N.weight (out, in, 3), encoder.N.bias (out)   N = 0..3, ReLU after each
  lstm.weight_ih (512, 128), lstm.weight_hh (512, 128), lstm.bias_ih (512), lstm.bias_hh (512)
  head.weight (1, 128, 1), head.bias (1)
The 16 kHz branch is the `then` branch of the graph's top-level If node (sr == 16000).
"""
import struct
import sys

import numpy as np

NAMES = {
    "stft.forward_basis_buffer": "stft.basis",
    "encoder.0.reparam_conv.weight": "encoder.0.weight",
    "encoder.0.reparam_conv.bias": "encoder.0.bias",
    "encoder.1.reparam_conv.weight": "encoder.1.weight",
    "encoder.1.reparam_conv.bias": "encoder.1.bias",
    "encoder.2.reparam_conv.weight": "encoder.2.weight",
    "encoder.2.reparam_conv.bias": "encoder.2.bias",
    "encoder.3.reparam_conv.weight": "encoder.3.weight",
    "encoder.3.reparam_conv.bias": "encoder.3.bias",
    "decoder.rnn.weight_ih": "lstm.weight_ih",
    "decoder.rnn.weight_hh": "lstm.weight_hh",
    "decoder.rnn.bias_ih": "lstm.bias_ih",
    "decoder.rnn.bias_hh": "lstm.bias_hh",
    "decoder.decoder.2.weight": "head.weight",
    "decoder.decoder.2.bias": "head.bias",
}


def sixteen_khz_weights(path):
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    branches = [node for node in model.graph.node if node.op_type == "If"]
    if not branches:
        raise SystemExit(f"export_silero: {path} has no sample-rate branch; is it silero_vad.onnx (v6)?")
    then_branch = next(a.g for a in branches[0].attribute if a.name == "then_branch")
    found = {}
    for node in then_branch.node:
        if node.op_type != "Constant":
            continue
        for source, target in NAMES.items():
            if node.output[0].endswith("__" + source):
                found[target] = numpy_helper.to_array(node.attribute[0].t).astype(np.float32)
    for initializer in then_branch.initializer:
        for source, target in NAMES.items():
            if initializer.name.endswith(source):
                found[target] = numpy_helper.to_array(initializer).astype(np.float32)
    missing = sorted(set(NAMES.values()) - set(found))
    if missing:
        raise SystemExit(f"export_silero: {path} lacks {', '.join(missing)}; expected Silero VAD v6")
    return found


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__.strip().splitlines()[2])
    tensors = sixteen_khz_weights(argv[1])
    with open(argv[2], "wb") as out:
        out.write(b"PSVW")
        out.write(struct.pack("<II", 1, len(tensors)))
        for name in sorted(tensors):
            array = np.ascontiguousarray(tensors[name], dtype="<f4")
            encoded = name.encode("utf-8")
            out.write(struct.pack("<H", len(encoded)))
            out.write(encoded)
            out.write(struct.pack("<B", array.ndim))
            out.write(struct.pack(f"<{array.ndim}I", *array.shape))
            out.write(array.tobytes())
    parameters = sum(int(t.size) for name, t in tensors.items() if name != "stft.basis")
    print(f"wrote {argv[2]}: {len(tensors)} tensors, {parameters} parameters (+ STFT basis)")


if __name__ == "__main__":
    main(sys.argv)
