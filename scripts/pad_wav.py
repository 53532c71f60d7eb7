#!/usr/bin/env python3
"""Adds silence before and after a 16-bit PCM WAV file (stdlib only).

usage: pad_wav.py IN.wav OUT.wav SECONDS_BEFORE SECONDS_AFTER
"""
import sys
import wave


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__.strip())
    source, target, before, after = argv[1], argv[2], float(argv[3]), float(argv[4])
    with wave.open(source, "rb") as reader:
        params = reader.getparams()
        frames = reader.readframes(params.nframes)
    frame_bytes = params.sampwidth * params.nchannels
    silence = lambda seconds: b"\0" * (int(seconds * params.framerate) * frame_bytes)
    with wave.open(target, "wb") as writer:
        writer.setparams(params)
        writer.writeframes(silence(before) + frames + silence(after))


if __name__ == "__main__":
    main(sys.argv)
