#!/usr/bin/env python3
"""Converts a Whisper model from CTranslate2's format to whisper.cpp's (ggml) format.

usage: convert_whisper_ct2.py CT2_MODEL (directory or model.bin) ASSETS_DIR OUTPUT.bin

ASSETS_DIR holds OpenAI Whisper's `mel_filters.npz` and `gpt2.tiktoken` (English-only models)
or `multilingual.tiktoken` (multilingual models, n_vocab >= 51865), from the openai-whisper
source package, whisper/assets/. The wrong vocabulary gives a model that transcribes garbage.
Needs numpy only.

CTranslate2 model.bin (little-endian): u32 binary version; (version >= 2) spec name and u32
revision; u32 variable count; per variable: name, u8 rank, rank x u32 shape, (version >= 4) u8
dtype and u32 byte count, then the bytes; (version >= 3) u32 alias count and alias pairs.
Strings are a u16 length and that many bytes, NUL-padded.

whisper.cpp's file: magic 0x67676d6c, eleven i32 (n_vocab, n_audio_ctx, n_audio_state,
n_audio_head, n_audio_layer, n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels,
ftype), the mel filter bank (i32 n_mel, i32 n_fft, f32 data), the vocabulary (i32 count, then
i32 length + bytes each), then tensors named as in OpenAI's PyTorch checkpoints: i32 n_dims,
i32 name length, i32 type (0 f32, 1 f16), the dimensions innermost first, the name, the data.
"""
import base64
import os
import struct
import sys
import time

import numpy as np

GGML_MAGIC = 0x67676D6C
CT2_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


class ConversionError(Exception):
    """A problem with the inputs, phrased for the person running the converter."""


# ---- reading CTranslate2 ---------------------------------------------------------------------

class _Reader:
    def __init__(self, data, path):
        self.data, self.offset, self.path = data, 0, path

    def take(self, count):
        if self.offset + count > len(self.data):
            raise ConversionError(f"{self.path} is truncated at byte {self.offset}; download it again")
        chunk = self.data[self.offset:self.offset + count]
        self.offset += count
        return chunk

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def string(self):
        return self.take(self.u16()).rstrip(b"\0").decode("utf-8")


def read_ct2(path):
    """Returns {name: numpy array} for every variable (aliases resolved) of a CTranslate2 model."""
    if os.path.isdir(path):
        path = os.path.join(path, "model.bin")
    if not os.path.isfile(path):
        raise ConversionError(f"no CTranslate2 model at {path}")
    with open(path, "rb") as handle:
        reader = _Reader(handle.read(), path)
    version = reader.u32()
    if not 1 <= version <= 6:
        raise ConversionError(f"{path} is not a CTranslate2 model (binary version {version})")
    if version >= 2:
        spec = reader.string()
        reader.u32()  # spec revision
        if spec != "WhisperSpec":
            raise ConversionError(f"{path} holds a {spec}, not a Whisper model")
    variables = {}
    for _ in range(reader.u32()):
        name = reader.string()
        shape = tuple(reader.u32() for _ in range(reader.u8()))
        if version >= 4:
            dtype_code = reader.u8()
            size = reader.u32()
        else:
            dtype_code, size = 0, 4 * int(np.prod(shape))
        if dtype_code not in CT2_DTYPES:
            raise ConversionError(f"variable {name} has an unsupported dtype code {dtype_code} (quantized model?)")
        raw = reader.take(size)
        variables[name] = np.frombuffer(raw, dtype=CT2_DTYPES[dtype_code]).reshape(shape)
    if version >= 3:
        for _ in range(reader.u32()):
            alias, target = reader.string(), reader.string()
            if target in variables:
                variables[alias] = variables[target]
    return variables


# ---- mapping to OpenAI's names -----------------------------------------------------------------

def _need(variables, name):
    if name not in variables:
        raise ConversionError(f"the CTranslate2 model has no variable {name}")
    return variables[name]


def _linear(variables, source, target, bias=True):
    yield f"{target}.weight", _need(variables, f"{source}/weight")
    if bias:
        yield f"{target}.bias", _need(variables, f"{source}/bias")


def _norm(variables, source, target):
    yield f"{target}.weight", _need(variables, f"{source}/gamma")
    yield f"{target}.bias", _need(variables, f"{source}/beta")


def _split_rows(matrix, parts):
    rows = matrix.shape[0] // parts
    return [matrix[i * rows:(i + 1) * rows] for i in range(parts)]


def _fused_attention(variables, source, target, names):
    """Splits a fused projection (rows q|k|v or k|v) into separate tensors; keys have no bias."""
    weights = _split_rows(_need(variables, f"{source}/weight"), len(names))
    biases = _split_rows(_need(variables, f"{source}/bias"), len(names))
    for name, weight, bias in zip(names, weights, biases):
        yield f"{target}.{name}.weight", weight
        if name != "key":
            yield f"{target}.{name}.bias", bias


def layer_count(variables, prefix):
    count = 0
    while f"{prefix}/layer_{count}/ffn/linear_0/weight" in variables:
        count += 1
    return count


def openai_tensors(variables):
    """Yields (OpenAI name, array) for every tensor whisper.cpp loads."""
    yield "encoder.conv1.weight", _need(variables, "encoder/conv1/weight")
    yield "encoder.conv1.bias", _need(variables, "encoder/conv1/bias").reshape(-1, 1)
    yield "encoder.conv2.weight", _need(variables, "encoder/conv2/weight")
    yield "encoder.conv2.bias", _need(variables, "encoder/conv2/bias").reshape(-1, 1)
    yield "encoder.positional_embedding", _need(variables, "encoder/position_encodings/encodings")
    for i in range(layer_count(variables, "encoder")):
        src, dst = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        yield from _norm(variables, f"{src}/self_attention/layer_norm", f"{dst}.attn_ln")
        yield from _fused_attention(variables, f"{src}/self_attention/linear_0", f"{dst}.attn", ["query", "key", "value"])
        yield from _linear(variables, f"{src}/self_attention/linear_1", f"{dst}.attn.out")
        yield from _norm(variables, f"{src}/ffn/layer_norm", f"{dst}.mlp_ln")
        yield from _linear(variables, f"{src}/ffn/linear_0", f"{dst}.mlp.0")
        yield from _linear(variables, f"{src}/ffn/linear_1", f"{dst}.mlp.2")
    yield from _norm(variables, "encoder/layer_norm", "encoder.ln_post")

    yield "decoder.token_embedding.weight", _need(variables, "decoder/embeddings/weight")
    yield "decoder.positional_embedding", _need(variables, "decoder/position_encodings/encodings")
    for i in range(layer_count(variables, "decoder")):
        src, dst = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        yield from _norm(variables, f"{src}/self_attention/layer_norm", f"{dst}.attn_ln")
        yield from _fused_attention(variables, f"{src}/self_attention/linear_0", f"{dst}.attn", ["query", "key", "value"])
        yield from _linear(variables, f"{src}/self_attention/linear_1", f"{dst}.attn.out")
        yield from _norm(variables, f"{src}/attention/layer_norm", f"{dst}.cross_attn_ln")
        yield from _linear(variables, f"{src}/attention/linear_0", f"{dst}.cross_attn.query")
        yield from _fused_attention(variables, f"{src}/attention/linear_1", f"{dst}.cross_attn", ["key", "value"])
        yield from _linear(variables, f"{src}/attention/linear_2", f"{dst}.cross_attn.out")
        yield from _norm(variables, f"{src}/ffn/layer_norm", f"{dst}.mlp_ln")
        yield from _linear(variables, f"{src}/ffn/linear_0", f"{dst}.mlp.0")
        yield from _linear(variables, f"{src}/ffn/linear_1", f"{dst}.mlp.2")
    yield from _norm(variables, "decoder/layer_norm", "decoder.ln")


def _stored_as_f32(name, array):
    """whisper.cpp expects 1-D tensors, conv biases and positional embeddings in f32."""
    return array.ndim < 2 or name.endswith("conv1.bias") or name.endswith("conv2.bias") or name.endswith("positional_embedding")


# ---- writing whisper.cpp ---------------------------------------------------------------------

def hyperparameters(variables, n_mels):
    embeddings = _need(variables, "decoder/embeddings/weight")
    encoder_positions = _need(variables, "encoder/position_encodings/encodings")
    decoder_positions = _need(variables, "decoder/position_encodings/encodings")
    heads = lambda side: int(np.asarray(_need(variables, f"{side}/num_heads")).reshape(-1)[0])
    return [
        embeddings.shape[0],             # n_vocab
        encoder_positions.shape[0],      # n_audio_ctx
        encoder_positions.shape[1],      # n_audio_state
        heads("encoder"),                # n_audio_head
        layer_count(variables, "encoder"),
        decoder_positions.shape[0],      # n_text_ctx
        decoder_positions.shape[1],      # n_text_state
        heads("decoder"),                # n_text_head
        layer_count(variables, "decoder"),
        n_mels,
        1,                               # ftype: f16 weights
    ]


MULTILINGUAL_VOCAB = 51865  # English-only models have 51864 tokens


def read_assets(assets_dir, n_mels, n_vocab):
    filters_path = os.path.join(assets_dir, "mel_filters.npz")
    vocabulary = "multilingual.tiktoken" if n_vocab >= MULTILINGUAL_VOCAB else "gpt2.tiktoken"
    vocab_path = os.path.join(assets_dir, vocabulary)
    for path in (filters_path, vocab_path):
        if not os.path.isfile(path):
            raise ConversionError(f"missing {path} (from the openai-whisper source package, whisper/assets/)")
    with np.load(filters_path) as npz:
        key = f"mel_{n_mels}"
        if key not in npz:
            raise ConversionError(f"{filters_path} has no {key} filter bank")
        filters = np.asarray(npz[key], dtype=np.float32)
    tokens = []
    with open(vocab_path, "rb") as handle:
        for line in handle:
            if line.strip():
                tokens.append(base64.b64decode(line.split()[0]))
    return filters, tokens


def write_ggml(path, hparams, filters, tokens, tensors):
    with open(path, "wb") as out:
        out.write(struct.pack("<I", GGML_MAGIC))
        out.write(struct.pack("<11i", *hparams))
        out.write(struct.pack("<ii", *filters.shape))
        out.write(filters.astype("<f4").tobytes())
        out.write(struct.pack("<i", len(tokens)))
        for token in tokens:
            out.write(struct.pack("<i", len(token)))
            out.write(token)
        count = 0
        for name, array in tensors:
            f32 = _stored_as_f32(name, array)
            data = np.ascontiguousarray(array, dtype="<f4" if f32 else "<f2")
            encoded = name.encode("utf-8")
            out.write(struct.pack("<iii", data.ndim, len(encoded), 0 if f32 else 1))
            out.write(struct.pack(f"<{data.ndim}i", *reversed(data.shape)))
            out.write(encoded)
            out.write(data.tobytes())
            count += 1
    return count


def convert(ct2_path, assets_dir, output):
    variables = read_ct2(ct2_path)
    n_mels = _need(variables, "encoder/conv1/weight").shape[1]
    hparams = hyperparameters(variables, n_mels)
    filters, tokens = read_assets(assets_dir, n_mels, hparams[0])
    partial = output + ".part"
    try:
        count = write_ggml(partial, hparams, filters, tokens, openai_tensors(variables))
        os.replace(partial, output)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return hparams, count


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        hparams, count = convert(argv[1], argv[2], argv[3])
    except ConversionError as error:
        print(f"convert_whisper_ct2: {error}", file=sys.stderr)
        return 1
    size = os.path.getsize(argv[3])
    print(f"wrote {argv[3]}: {count} tensors, {hparams[4]}+{hparams[8]} layers, n_vocab {hparams[0]}, "
          f"{size / 1e6:.1f} MB in {time.monotonic() - start:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
