#!/usr/bin/env python3
"""Drives a running `parley serve`'s audio endpoints with the official OpenAI Python SDK.

Usage: check_openai_audio.py BASE_URL API_KEY QUESTION_WAV

Speech in every response format (each checked by ffprobe, decoded by ffmpeg — not by the
server's code — and heard back as the sentence), speech as server-sent events, recordings as a
browser (webm/opus) and a phone (m4a) make them, srt and vtt subtitles, word timestamps,
streamed transcripts and translations. Prints one line per check and exits 1 if any failed.
Run by the Swift test suite (ParleyServerTests) against a `parley serve` child.
"""
import base64
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import openai

base_url, api_key, question = sys.argv[1:4]
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=120)
failures = []
work = Path(tempfile.mkdtemp(prefix="parley-audio-"))
SENTENCE = "What is the capital of France?"


def check(name, passed, detail=""):
    print(f"{'ok' if passed else 'FAILED'}: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not passed:
        failures.append(name)


def words(text):
    return re.findall(r"[a-z]+", text.lower())


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,sample_rate",
                          "-of", "json", str(path)], capture_output=True, text=True, check=True).stdout
    streams = json.loads(out).get("streams", [])
    return streams[0] if streams else {}


def to_wav(path, raw=None):
    """ffmpeg's own decoding of `path` to a 16 kHz WAV file."""
    out = path.with_suffix(".decoded.wav")
    subprocess.run(["ffmpeg", "-v", "error", "-y"] + (raw or []) + ["-i", str(path), "-ac", "1", "-ar", "16000", str(out)], check=True)
    return out


def transcribe(path, **options):
    with open(path, "rb") as handle:
        return client.audio.transcriptions.create(model="whisper-1", file=handle, **options)


# Speech in every format, checked by independent tools.
codecs = {"mp3": "mp3", "opus": "opus", "aac": "aac", "flac": "flac", "wav": "pcm_s16le"}
for fmt in ["mp3", "opus", "aac", "flac", "wav", "pcm"]:
    path = work / f"speech.{fmt}"
    # espeak-ng ("model": "espeak-ng"): the same audio every time, so what whisper hears is the
    # format's doing (the neural voice varies from one synthesis to the next).
    with client.audio.speech.with_streaming_response.create(model="espeak-ng", voice="alloy", input=SENTENCE, response_format=fmt) as response:
        response.stream_to_file(path)
        content_type = response.headers.get("content-type")
    if fmt == "pcm":
        decoded = to_wav(path, raw=["-f", "s16le", "-ar", "24000", "-ac", "1"])
        codec_ok = path.stat().st_size % 2 == 0
    else:
        codec_ok = probe(path).get("codec_name") == codecs[fmt]
        decoded = to_wav(path)
    heard = transcribe(decoded).text
    check(f"speech as {fmt} ({content_type}) decodes with ffmpeg and is heard back", codec_ok and "france" in words(heard), heard)

# Speech as server-sent events: the SDK reads the stream; the audio joins into one mp3.
mp3 = bytearray()
done = None
with client.audio.speech.with_streaming_response.create(model="espeak-ng", voice="alloy", input=SENTENCE, response_format="mp3",
                                                        stream_format="sse") as response:
    for line in response.iter_lines():
        if not line.startswith("data: "):
            continue
        event = json.loads(line[6:])
        if event["type"] == "speech.audio.delta":
            mp3 += base64.b64decode(event["audio"])
        elif event["type"] == "speech.audio.done":
            done = event
(work / "events.mp3").write_bytes(bytes(mp3))
heard = transcribe(to_wav(work / "events.mp3")).text
check("speech as events joins into a playable mp3", done is not None and "usage" in done and "france" in words(heard), heard)

# Recordings as a browser and a phone make them, from the spoken question.
for name, codec, suffix in [("a browser's webm/opus", ["-c:a", "libopus"], "webm"), ("a phone's m4a", ["-c:a", "aac", "-b:a", "96k"], "m4a"),
                            ("an mp3", ["-c:a", "libmp3lame"], "mp3"), ("an ogg/opus", ["-c:a", "libopus"], "ogg")]:
    path = work / f"recording.{suffix}"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", question] + codec + [str(path)], check=True)
    heard = transcribe(path).text
    check(f"{name} is transcribed", "capital" in words(heard) and "france" in words(heard), heard)

# Subtitles and timestamps.
duration = float(json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", question],
                                           capture_output=True, text=True, check=True).stdout)["format"]["duration"])
for fmt, sep in [("srt", ","), ("vtt", ".")]:
    text = transcribe(question, response_format=fmt)
    stamps = re.findall(r"(\d\d):(\d\d):(\d\d)" + re.escape(sep) + r"(\d\d\d)", text)
    seconds = [int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000 for h, m, s, ms in stamps]
    inside = bool(seconds) and all(0 <= t <= duration + 0.01 for t in seconds)
    check(f"{fmt} cues fall inside the audio", inside and "france" in words(text) and (fmt != "vtt" or text.startswith("WEBVTT")), text.strip())
verbose = transcribe(question, response_format="verbose_json", timestamp_granularities=["word", "segment"])
timed = [(w.word, w.start, w.end) for w in (verbose.words or [])]
ordered = all(a[1] <= b[1] for a, b in zip(timed, timed[1:])) and all(0 <= s <= e <= duration + 0.01 for _, s, e in timed)
check("verbose_json times each word", bool(timed) and ordered and bool(verbose.segments), str(timed))

# A streamed transcript and a translation.
deltas, final = [], None
with open(question, "rb") as handle:
    for event in client.audio.transcriptions.create(model="whisper-1", file=handle, stream=True):
        if event.type == "transcript.text.delta":
            deltas.append(event.delta)
        elif event.type == "transcript.text.done":
            final = event.text
check("a streamed transcript ends with the whole text", final is not None and "".join(deltas) == final and "france" in words(final), str(final))
with open(question, "rb") as handle:
    translated = client.audio.translations.create(model="whisper-1", file=handle)
check("a translation is written in English", "france" in words(translated.text), translated.text)

# A clear error for what cannot be read.
try:
    client.audio.transcriptions.create(model="whisper-1", file=("notes.mp3", b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(range(256)) * 8))
    check("a corrupt mp3 is a 400", False, "accepted")
except openai.BadRequestError as error:
    check("a corrupt mp3 is a 400", "corrupt" in str(error), str(error))

print(f"{len(failures)} failed" if failures else "all audio checks passed")
sys.exit(1 if failures else 0)
