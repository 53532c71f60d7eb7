#!/usr/bin/env python3
"""Reference end-of-turn probabilities from Smart Turn v3.2, via onnxruntime, for Parley's tests.

usage: smart_turn_reference.py smart-turn-v3.2-cpu.onnx OUTPUT.json CLIP.wav...

Each CLIP.wav: 16 kHz mono 16-bit PCM, the speech up to the pause. For each clip the last 8 s
(left-padded with zeros) become Whisper's log-mel features, computed here with numpy alone
(zero mean and unit variance over the window, periodic Hann window of 400, hop 160, reflection
of 200 samples at both ends, Slaney mel filters 0-8 kHz, power, log10 floored at 1e-10 and at
the maximum less 8, (x + 4) / 4, the last frame left out), and the model gives the probability
that the turn is complete (its output, named "logits", is already a sigmoid). Writes
{"clips": [{"name", "seconds", "probability", "milliseconds"}], "features": {"clip", "file"}}, and
the first clip's [80, 800] features, row-major little-endian float32, to the file named there
(beside OUTPUT.json): what the Swift features must match, and the wrapper's input for a probability
compared with onnxruntime's on exactly the same values.
"""
import json
import os
import sys
import time
import wave

import numpy as np

RATE, N_FFT, HOP, MELS, WINDOW = 16000, 400, 160, 80, 8 * 16000


def slaney_mel(hz):
    hz = np.asarray(hz, dtype=np.float64)
    linear = 3.0 * hz / 200.0
    logarithmic = 15.0 + np.log(np.maximum(hz, 1e-9) / 1000.0) * 27.0 / np.log(6.4)
    return np.where(hz < 1000.0, linear, logarithmic)


def slaney_hz(mel):
    mel = np.asarray(mel, dtype=np.float64)
    return np.where(mel < 15.0, 200.0 * mel / 3.0, 1000.0 * np.exp((mel - 15.0) * np.log(6.4) / 27.0))


def mel_filters():
    bins = N_FFT // 2 + 1
    edges = slaney_hz(np.linspace(0.0, slaney_mel(RATE / 2), MELS + 2))
    freqs = np.linspace(0.0, RATE / 2, bins)
    bank = np.zeros((MELS, bins))
    for m in range(MELS):
        left, centre, right = edges[m], edges[m + 1], edges[m + 2]
        rise = (freqs - left) / (centre - left)
        fall = (right - freqs) / (right - centre)
        bank[m] = np.clip(np.minimum(rise, fall), 0.0, None) * 2.0 / (right - left)
    return bank


def features(samples):
    x = np.zeros(WINDOW, dtype=np.float64)
    tail = samples[-WINDOW:]
    x[WINDOW - len(tail):] = tail
    x = (x - x.mean()) / np.sqrt(x.var() + 1e-7)
    padded = np.pad(x, N_FFT // 2, mode="reflect")
    window = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(N_FFT) / N_FFT)
    count = WINDOW // HOP
    frames = np.stack([padded[i * HOP:i * HOP + N_FFT] for i in range(count)])
    power = np.abs(np.fft.rfft(frames * window, axis=1)) ** 2
    log_mel = np.log10(np.maximum(mel_filters() @ power.T, 1e-10))
    log_mel = np.maximum(log_mel, log_mel.max() - 8.0)
    return ((log_mel + 4.0) / 4.0).astype(np.float32)


def read(path):
    with wave.open(path, "rb") as reader:
        if reader.getframerate() != RATE or reader.getnchannels() != 1 or reader.getsampwidth() != 2:
            raise SystemExit(f"{path}: not 16 kHz mono 16-bit PCM")
        data = reader.readframes(reader.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float64) / 32768.0


def main(argv):
    if len(argv) < 4:
        raise SystemExit(__doc__.strip().splitlines()[2])
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(argv[1], sess_options=options, providers=["CPUExecutionProvider"])
    clips, first = [], None
    for path in argv[3:]:
        samples = read(path)
        values = features(samples)
        if first is None:
            name = os.path.splitext(os.path.basename(path))[0] + ".features.f32"
            values.astype("<f4").tofile(os.path.join(os.path.dirname(os.path.abspath(argv[2])), name))
            first = {"clip": os.path.basename(path), "file": name}
        started = time.perf_counter()
        probability = float(session.run(["logits"], {"input_features": values[None]})[0].ravel()[0])
        took = (time.perf_counter() - started) * 1000
        clips.append({"name": os.path.basename(path), "seconds": len(samples) / RATE,
                      "probability": probability, "milliseconds": round(took, 1)})
    with open(argv[2], "w") as out:
        json.dump({"model": os.path.basename(argv[1]), "onnxruntime": onnxruntime.__version__,
                   "clips": clips, "features": first}, out)
    for clip in clips:
        print(f"{clip['name']}: {clip['probability']:.4f}")


if __name__ == "__main__":
    main(sys.argv)
