#!/usr/bin/env python3
"""Reference speech probabilities from the official Silero VAD ONNX model, via onnxruntime.

usage: silero_reference.py silero_vad.onnx AUDIO.wav OUTPUT.json
       silero_reference.py --time silero_vad.onnx AUDIO.wav


AUDIO.wav: 16 kHz mono 16-bit PCM. Runs the model chunk by chunk as Parley's Swift network
does: 512-sample chunks (the last one zero-padded), each with the previous 64 samples
prepended (zeros before the first), the recurrent state carried over. Writes
{"sample_rate": 16000, "chunk": 512, "probabilities": [...]}. With --time, prints instead the
median milliseconds per chunk of five passes (one thread, each chunk one session.run, as a
Python voice framework calls it): the peer `parley-benchmarks silero` measures against.
"""
import json
import sys
import wave

import numpy as np


def main(argv):
    timing = len(argv) == 4 and argv[1] == "--time"
    if timing:
        argv = argv[1:] + ["-"]
    if len(argv) != 4:
        raise SystemExit(__doc__.strip().splitlines()[2])
    import onnxruntime

    with wave.open(argv[2], "rb") as reader:
        if reader.getframerate() != 16000 or reader.getnchannels() != 1 or reader.getsampwidth() != 2:
            raise SystemExit(f"silero_reference: {argv[2]} must be 16 kHz mono 16-bit PCM")
        audio = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(argv[1], options, providers=["CPUExecutionProvider"])
    rate = np.array(16000, dtype=np.int64)

    def run():
        state = np.zeros((2, 1, 128), dtype=np.float32)
        context = np.zeros(64, dtype=np.float32)
        probabilities = []
        for start in range(0, len(audio), 512):
            chunk = audio[start:start + 512]
            chunk = np.pad(chunk, (0, 512 - len(chunk)))
            frame = np.concatenate([context, chunk])[np.newaxis, :]
            output, state = session.run(None, {"input": frame, "state": state, "sr": rate})
            probabilities.append(float(output[0, 0]))
            context = frame[0, -64:]
        return probabilities

    if timing:
        import time
        run()  # warm-up
        passes = []
        for _ in range(5):
            start = time.perf_counter()
            count = len(run())
            passes.append((time.perf_counter() - start) * 1000 / count)
        print(f"{sorted(passes)[2]:.4f}")
        return
    probabilities = run()
    with open(argv[3], "w", encoding="utf-8") as handle:
        json.dump({"sample_rate": 16000, "chunk": 512, "probabilities": probabilities}, handle)
    print(f"{len(probabilities)} reference probabilities written to {argv[3]}")


if __name__ == "__main__":
    main(sys.argv)
