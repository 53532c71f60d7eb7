#!/usr/bin/env python3
"""Self-test of convert_whisper_ct2.py on a small synthetic model (stdlib unittest + numpy).

Builds a 2-layer CTranslate2 Whisper file with tiny dimensions and known values, converts it,
and reads the ggml file back, checking the header, the mel filters, the vocabulary, every
tensor's name, shape, type and values (including the q/k/v split and the absent key bias),
and the errors on bad input.
"""
import base64
import os
import struct
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import convert_whisper_ct2 as converter  # noqa: E402

STATE, HEADS, MELS, VOCAB, AUDIO_CTX, TEXT_CTX, LAYERS = 8, 2, 4, 6, 5, 3, 2


def ct2_string(text):
    data = text.encode() + b"\0"
    return struct.pack("<H", len(data)) + data


def synthetic_variables(rng):
    v = {}
    f = lambda *shape: rng.standard_normal(shape).astype(np.float16)
    v["encoder/conv1/weight"], v["encoder/conv1/bias"] = f(STATE, MELS, 3), f(STATE)
    v["encoder/conv2/weight"], v["encoder/conv2/bias"] = f(STATE, STATE, 3), f(STATE)
    v["encoder/position_encodings/encodings"] = f(AUDIO_CTX, STATE)
    v["decoder/position_encodings/encodings"] = f(TEXT_CTX, STATE)
    v["decoder/embeddings/weight"] = f(VOCAB, STATE)
    v["encoder/num_heads"] = np.array(HEADS, dtype=np.int32)
    v["decoder/num_heads"] = np.array(HEADS, dtype=np.int32)
    for side in ("encoder", "decoder"):
        v[f"{side}/layer_norm/gamma"], v[f"{side}/layer_norm/beta"] = f(STATE), f(STATE)
        for i in range(LAYERS):
            p = f"{side}/layer_{i}"
            attention = ["self_attention"] + (["attention"] if side == "decoder" else [])
            for block in attention + ["ffn"]:
                v[f"{p}/{block}/layer_norm/gamma"], v[f"{p}/{block}/layer_norm/beta"] = f(STATE), f(STATE)
            v[f"{p}/self_attention/linear_0/weight"], v[f"{p}/self_attention/linear_0/bias"] = f(3 * STATE, STATE), f(3 * STATE)
            v[f"{p}/self_attention/linear_1/weight"], v[f"{p}/self_attention/linear_1/bias"] = f(STATE, STATE), f(STATE)
            v[f"{p}/ffn/linear_0/weight"], v[f"{p}/ffn/linear_0/bias"] = f(4 * STATE, STATE), f(4 * STATE)
            v[f"{p}/ffn/linear_1/weight"], v[f"{p}/ffn/linear_1/bias"] = f(STATE, 4 * STATE), f(STATE)
            if side == "decoder":
                v[f"{p}/attention/linear_0/weight"], v[f"{p}/attention/linear_0/bias"] = f(STATE, STATE), f(STATE)
                v[f"{p}/attention/linear_1/weight"], v[f"{p}/attention/linear_1/bias"] = f(2 * STATE, STATE), f(2 * STATE)
                v[f"{p}/attention/linear_2/weight"], v[f"{p}/attention/linear_2/bias"] = f(STATE, STATE), f(STATE)
    return v


def write_ct2(path, variables, spec="WhisperSpec", version=6):
    codes = {np.dtype(np.float32): 0, np.dtype(np.int32): 3, np.dtype(np.float16): 4}
    with open(path, "wb") as out:
        out.write(struct.pack("<I", version) + ct2_string(spec) + struct.pack("<I", 3))
        out.write(struct.pack("<I", len(variables)))
        for name, array in variables.items():
            out.write(ct2_string(name) + struct.pack("<B", array.ndim))
            out.write(struct.pack(f"<{array.ndim}I", *array.shape))
            data = array.tobytes()
            out.write(struct.pack("<BI", codes[array.dtype], len(data)) + data)
        out.write(struct.pack("<I", 1) + ct2_string("decoder/projection/weight") + ct2_string("decoder/embeddings/weight"))


def read_ggml(path):
    with open(path, "rb") as handle:
        data = handle.read()
    offset = 0

    def take(fmt):
        nonlocal offset
        values = struct.unpack_from(fmt, data, offset)
        offset += struct.calcsize(fmt)
        return values

    (magic,) = take("<I")
    hparams = take("<11i")
    rows, cols = take("<ii")
    filters = np.frombuffer(data, "<f4", rows * cols, offset).reshape(rows, cols)
    offset += 4 * rows * cols
    (count,) = take("<i")
    tokens = []
    for _ in range(count):
        (length,) = take("<i")
        tokens.append(data[offset:offset + length])
        offset += length
    tensors = {}
    while offset < len(data):
        n_dims, name_length, kind = take("<iii")
        dims = take(f"<{n_dims}i")
        name = data[offset:offset + name_length].decode()
        offset += name_length
        shape = tuple(reversed(dims))
        dtype = "<f4" if kind == 0 else "<f2"
        size = int(np.prod(shape))
        tensors[name] = (kind, np.frombuffer(data, dtype, size, offset).reshape(shape))
        offset += size * np.dtype(dtype).itemsize
    return magic, hparams, filters, tokens, tensors


class ConverterTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.rng = np.random.default_rng(7)
        self.variables = synthetic_variables(self.rng)
        self.model = os.path.join(self.dir.name, "model.bin")
        write_ct2(self.model, self.variables)
        self.assets = os.path.join(self.dir.name, "assets")
        os.mkdir(self.assets)
        self.filters = self.rng.random((MELS, 9)).astype(np.float32)
        np.savez(os.path.join(self.assets, "mel_filters.npz"), **{f"mel_{MELS}": self.filters})
        self.vocabulary = [b"!", b"hello", b" world", "é".encode()]
        with open(os.path.join(self.assets, "gpt2.tiktoken"), "wb") as out:
            for rank, token in enumerate(self.vocabulary):
                out.write(base64.b64encode(token) + b" %d\n" % rank)
        self.output = os.path.join(self.dir.name, "ggml.bin")

    def tearDown(self):
        self.dir.cleanup()

    def test_header_filters_and_vocabulary(self):
        converter.convert(self.dir.name, self.assets, self.output)
        magic, hparams, filters, tokens, _ = read_ggml(self.output)
        self.assertEqual(magic, 0x67676D6C)
        self.assertEqual(list(hparams), [VOCAB, AUDIO_CTX, STATE, HEADS, LAYERS, TEXT_CTX, STATE, HEADS, LAYERS, MELS, 1])
        np.testing.assert_array_equal(filters, self.filters)
        self.assertEqual(tokens, self.vocabulary)

    def test_tensors_names_shapes_types(self):
        converter.convert(self.model, self.assets, self.output)
        tensors = read_ggml(self.output)[4]
        per_encoder_layer, per_decoder_layer = 15, 24
        self.assertEqual(len(tensors), 5 + 2 + 2 + 2 + LAYERS * (per_encoder_layer + per_decoder_layer))
        kind, bias = tensors["encoder.conv1.bias"]
        self.assertEqual((kind, bias.shape), (0, (STATE, 1)))
        self.assertEqual(tensors["encoder.conv1.weight"][0], 1)
        self.assertEqual(tensors["encoder.positional_embedding"][0], 0)
        self.assertEqual(tensors["decoder.blocks.1.mlp_ln.bias"][0], 0)
        self.assertEqual(tensors["decoder.token_embedding.weight"][1].shape, (VOCAB, STATE))
        self.assertNotIn("encoder.blocks.0.attn.key.bias", tensors)
        self.assertNotIn("decoder.blocks.0.cross_attn.key.bias", tensors)

    def test_fused_projections_are_split_in_order(self):
        converter.convert(self.model, self.assets, self.output)
        tensors = read_ggml(self.output)[4]
        fused = self.variables["encoder/layer_1/self_attention/linear_0/weight"]
        for index, part in enumerate(["query", "key", "value"]):
            np.testing.assert_array_equal(tensors[f"encoder.blocks.1.attn.{part}.weight"][1], fused[index * STATE:(index + 1) * STATE])
        fused_bias = self.variables["encoder/layer_1/self_attention/linear_0/bias"]
        np.testing.assert_array_equal(tensors["encoder.blocks.1.attn.value.bias"][1], fused_bias[2 * STATE:].astype(np.float32))
        cross = self.variables["decoder/layer_0/attention/linear_1/weight"]
        np.testing.assert_array_equal(tensors["decoder.blocks.0.cross_attn.key.weight"][1], cross[:STATE])
        np.testing.assert_array_equal(tensors["decoder.blocks.0.cross_attn.value.weight"][1], cross[STATE:])
        np.testing.assert_array_equal(tensors["decoder.blocks.0.cross_attn.out.weight"][1],
                                      self.variables["decoder/layer_0/attention/linear_2/weight"])

    def test_truncated_model_is_a_clear_error(self):
        with open(self.model, "rb") as handle:
            data = handle.read()
        with open(self.model, "wb") as handle:
            handle.write(data[: len(data) // 2])
        with self.assertRaisesRegex(converter.ConversionError, "truncated"):
            converter.convert(self.model, self.assets, self.output)
        self.assertFalse(os.path.exists(self.output))

    def test_other_model_kinds_are_refused(self):
        write_ct2(self.model, self.variables, spec="TransformerSpec")
        with self.assertRaisesRegex(converter.ConversionError, "not a Whisper model"):
            converter.convert(self.model, self.assets, self.output)

    def test_missing_tensor_and_missing_assets(self):
        del self.variables["decoder/layer_1/ffn/linear_1/bias"]
        write_ct2(self.model, self.variables)
        with self.assertRaisesRegex(converter.ConversionError, "decoder/layer_1/ffn/linear_1/bias"):
            converter.convert(self.model, self.assets, self.output)
        with self.assertRaisesRegex(converter.ConversionError, "mel_filters.npz"):
            converter.convert(self.model, self.dir.name, self.output)


if __name__ == "__main__":
    unittest.main(verbosity=1)
