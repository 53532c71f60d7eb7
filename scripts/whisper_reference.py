#!/usr/bin/env python3
"""The reference transcript of a clip by the original CTranslate2 Whisper model.

usage: whisper_reference.py CT2_MODEL_DIR ASSETS_DIR AUDIO.wav OUTPUT.txt

Runs the model that convert_whisper_ct2.py converts, with the `ctranslate2` package, so the
tests can check that whisper.cpp on the converted file hears the same words. Greedy decoding,
English, no timestamps. AUDIO.wav must be 16 kHz mono 16-bit PCM.

Log-mel features as Whisper computes them: 30 s window (480,000 samples, zero-padded), STFT
with n_fft 400, hop 160, a periodic Hann window and reflect padding of n_fft/2 at both ends,
power spectrum, the last frame dropped (3000 frames), 80 mel filters from mel_filters.npz,
log10 clamped at 1e-10, floored at (max - 8), then (x + 4) / 4.
"""
import base64
import os
import sys
import wave

import numpy as np

SAMPLE_RATE, N_FFT, HOP, CHUNK = 16_000, 400, 160, 480_000
SOT, NO_TIMESTAMPS, EOT = 50257, 50362, 50256


def read_wav(path):
    with wave.open(path, "rb") as reader:
        if reader.getframerate() != SAMPLE_RATE or reader.getnchannels() != 1 or reader.getsampwidth() != 2:
            sys.exit(f"whisper_reference: {path} must be 16 kHz mono 16-bit PCM")
        frames = reader.readframes(reader.getnframes())
    return np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0


def log_mel(audio, filters):
    audio = np.pad(audio[:CHUNK], (0, max(0, CHUNK - len(audio))))
    padded = np.pad(audio, N_FFT // 2, mode="reflect")
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)
    count = 1 + (len(padded) - N_FFT) // HOP
    frames = np.stack([padded[i * HOP:i * HOP + N_FFT] * window for i in range(count)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2          # (frames, 201)
    mel = filters @ power[:-1].T                               # (80, 3000)
    log = np.log10(np.maximum(mel, 1e-10))
    log = np.maximum(log, log.max() - 8.0)
    return ((log + 4.0) / 4.0).astype(np.float32)


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__.strip().splitlines()[2])
    import ctranslate2

    model_dir, assets, audio_path, output = argv[1:]
    with np.load(os.path.join(assets, "mel_filters.npz")) as npz:
        filters = npz["mel_80"]
    with open(os.path.join(assets, "gpt2.tiktoken"), "rb") as handle:
        vocabulary = [base64.b64decode(line.split()[0]) for line in handle if line.strip()]
    features = log_mel(read_wav(audio_path), filters)[np.newaxis]
    model = ctranslate2.models.Whisper(model_dir, device="cpu", compute_type="float32", intra_threads=2)
    result = model.generate(ctranslate2.StorageView.from_array(features), [[SOT, NO_TIMESTAMPS]],
                            beam_size=1, max_length=224, suppress_blank=True)
    ids = [token for token in result[0].sequences_ids[0] if token < EOT]
    text = b"".join(vocabulary[token] for token in ids).decode("utf-8", errors="replace").strip()
    with open(output, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    print(f"reference transcript: {text}")


if __name__ == "__main__":
    main(sys.argv)
