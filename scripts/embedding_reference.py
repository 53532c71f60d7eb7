#!/usr/bin/env python3
"""Reference sentence embeddings from the original all-MiniLM-L6-v2 files, for the tests of
the on-device embedder (which runs the converted GGUF through llama.cpp).

    embedding_reference.py MODEL_DIR OUT.json

Tokenizes with the model's own tokenizer.json (Hugging Face `tokenizers`) and runs the
safetensors weights through a plain numpy BERT encoder in float32, then the sentence-transformers
steps: mean over the tokens, L2 normalization. Shares no code with llama.cpp or the converter.
Writes {"model", "sentences": [{"text", "tokens", "embedding"}]}.
"""
import json
import math
import struct
import sys
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

SENTENCES = [
    "The cat sits on the mat.",
    "A kitten is resting on a rug.",
    "Photosynthesis turns sunlight, water and carbon dioxide into sugar.",
    "What is the capital of France?",
    "Paris is the capital and largest city of France.",
    "Ein Satz auf Deutsch, mit Umlauten: äöü.",
    "cars, trucks and buses drive on the motorway",
]


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    out = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        start, end = entry["data_offsets"]
        out[name.removeprefix("bert.")] = np.frombuffer(data[8 + length + start:8 + length + end], dtype="<f4").reshape(entry["shape"])
    return out


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


def gelu(x: np.ndarray) -> np.ndarray:
    # BERT's exact GELU, x * Φ(x), with Φ through the error function.
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return (0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))).astype(np.float32)


def encode(ids: list[int], w: dict[str, np.ndarray], config: dict) -> np.ndarray:
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    hidden = config["hidden_size"]
    size = hidden // heads
    count = len(ids)
    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][:count]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."

        def linear(name: str, value: np.ndarray) -> np.ndarray:
            return value @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q = linear("attention.self.query", x).reshape(count, heads, size).transpose(1, 0, 2)
        k = linear("attention.self.key", x).reshape(count, heads, size).transpose(1, 0, 2)
        v = linear("attention.self.value", x).reshape(count, heads, size).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(count, hidden)
        x = layer_norm(linear("attention.output.dense", context) + x,
                       w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        inner = gelu(linear("intermediate.dense", x))
        x = layer_norm(linear("output.dense", inner) + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    pooled = x.mean(axis=0)
    return pooled / np.linalg.norm(pooled)


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: embedding_reference.py MODEL_DIR OUT.json")
    source, destination = Path(sys.argv[1]), Path(sys.argv[2])
    config = json.loads((source / "config.json").read_text())
    weights = read_safetensors(source / "model.safetensors")
    tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
    # tokenizer.json pads to 128; sentence-transformers pads nothing for one text and cuts at
    # max_seq_length (256).
    tokenizer.no_padding()
    tokenizer.enable_truncation(json.loads((source / "sentence_bert_config.json").read_text())["max_seq_length"])
    sentences = []
    for text in SENTENCES:
        ids = tokenizer.encode(text).ids
        vector = encode(ids, weights, config)
        sentences.append({"text": text, "tokens": ids, "embedding": [round(float(v), 7) for v in vector]})
    destination.write_text(json.dumps({"model": "all-MiniLM-L6-v2", "sentences": sentences}, indent=1) + "\n")


if __name__ == "__main__":
    main()
