#!/usr/bin/env python3
"""Drives a running `parley serve` with the official OpenAI Python SDK, unchanged.

Usage: check_openai_sdk.py BASE_URL API_KEY QUESTION_WAV

Chat (whole and streamed), transcription (json and text), speech (WAV), the model list,
embeddings on device, the SDK's error classes (a wrong key, a bad request), and the realtime client (a spoken question
through /v1/realtime with server VAD, then a typed one). Prints one line per check and exits 1 if
any failed. Run by the Swift test suite (ParleyServerTests) against a `parley serve` child.
"""
import base64
import io
import json
import sys
import wave

import numpy


import openai

base_url, api_key, question = sys.argv[1:4]
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=120)
checks, failures = [], []


def check(name, passed, detail=""):
    print(f"{'ok' if passed else 'FAILED'}: {name}" + (f" ({detail})" if detail else ""), flush=True)
    checks.append(name)
    if not passed:
        failures.append(name)


messages = [{"role": "user", "content": "What is the capital of France?"}]

raw = client.chat.completions.with_raw_response.create(model="auto", messages=messages, temperature=0, max_tokens=48)
completion = raw.parse()
answer = completion.choices[0].message.content or ""
check("chat completion answers", "Paris" in answer, answer)
check("chat completion names the provider", raw.headers.get("x-parley-provider") == "llama.cpp", raw.headers.get("x-parley-provider"))
check("chat completion reports usage", completion.usage is not None and completion.usage.completion_tokens > 0)

streamed, usage = "", None
for chunk in client.chat.completions.create(model="gpt-4o-mini", messages=messages, temperature=0, max_tokens=48,
                                            stream=True, stream_options={"include_usage": True}):
    if chunk.choices and chunk.choices[0].delta.content:
        streamed += chunk.choices[0].delta.content
    if chunk.usage:
        usage = chunk.usage
check("streamed chat answers", "Paris" in streamed, streamed)
check("streamed chat ends with usage", usage is not None and usage.completion_tokens > 0)

# Structured output: the schema's members come back in its order, valid, streamed or not.
person = {"type": "object", "additionalProperties": False, "required": ["zeta_name", "age", "alpha_city"],
          "properties": {"zeta_name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 120},
                         "alpha_city": {"type": "string"}}}
format_ = {"type": "json_schema", "json_schema": {"name": "person", "schema": person, "strict": True}}
about = [{"role": "user", "content": "Maria is 34 years old and lives in Lisbon."}]
structured = client.chat.completions.create(model="auto", messages=about, temperature=0, response_format=format_)
try:
    value = json.loads(structured.choices[0].message.content or "")
except ValueError:
    value = {}
check("structured output follows the schema, in its order", list(value.keys()) == ["zeta_name", "age", "alpha_city"]
      and isinstance(value.get("age"), int), structured.choices[0].message.content)
streamed_json = "".join(chunk.choices[0].delta.content or "" for chunk in client.chat.completions.create(
    model="auto", messages=about, temperature=0, response_format=format_, stream=True) if chunk.choices)
try:
    streamed_value = json.loads(streamed_json)
except ValueError:
    streamed_value = None
check("streamed structured output is the same JSON", streamed_value == value, streamed_json)

with open(question, "rb") as audio:
    transcript = client.audio.transcriptions.create(model="whisper-1", file=audio)
check("transcription", "france" in transcript.text.lower(), transcript.text)
with open(question, "rb") as audio:
    text = client.audio.transcriptions.create(model="whisper-1", file=audio, response_format="text")
check("transcription as text", isinstance(text, str) and "capital" in text.lower(), repr(text))

speech = client.audio.speech.create(model="tts-1", voice="alloy", input="Paris is the capital of France.", response_format="wav")
with wave.open(io.BytesIO(speech.content)) as wav:
    seconds = wav.getnframes() / wav.getframerate()
check("speech is a WAV", seconds > 1, f"{seconds:.2f} s")

ids = [model.id for model in client.models.list()]
check("model list", "auto" in ids and "local" in ids, ", ".join(ids))

# Embeddings on device (all-MiniLM-L6-v2, installed by scripts/setup): the SDK asks for base64
# by default and decodes it; floats when asked.
check("model list has the embedding model", "all-minilm-l6-v2" in ids, ", ".join(ids))
sentences = ["The cat sits on the mat.", "A kitten is resting on a rug.", "Interest rates rose again this quarter."]
embedded = client.embeddings.create(model="local", input=sentences)
vectors = [numpy.array(item.embedding) for item in embedded.data]
check("embeddings: one 384-float vector per input, normalized", len(vectors) == 3 and all(len(v) == 384 for v in vectors)
      and all(abs(float(numpy.linalg.norm(v)) - 1) < 1e-3 for v in vectors), f"{[len(v) for v in vectors]}")
check("embeddings: similar sentences are closer", float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2,
      f"{float(vectors[0] @ vectors[1]):.3f} vs {float(vectors[0] @ vectors[2]):.3f}")
check("embeddings report usage", embedded.usage.prompt_tokens > 0 and embedded.model == "all-minilm-l6-v2", str(embedded.usage))
as_floats = client.embeddings.create(model="all-minilm-l6-v2", input=sentences[0], encoding_format="float")
check("embeddings as floats equal the base64 ones", numpy.allclose(numpy.array(as_floats.data[0].embedding), vectors[0], atol=1e-6))
try:
    client.embeddings.create(model="local", input="")
    check("an empty embedding input raises BadRequestError", False)
except openai.BadRequestError as error:
    check("an empty embedding input raises BadRequestError", error.status_code == 400 and error.param == "input", str(error))

try:
    openai.OpenAI(base_url=base_url, api_key="not-the-key", max_retries=0).models.list()
    check("a wrong key raises AuthenticationError", False)
except openai.AuthenticationError as error:
    check("a wrong key raises AuthenticationError", error.status_code == 401 and error.code == "invalid_api_key")

try:
    client.chat.completions.create(model="auto", messages=[])
    check("a bad request raises BadRequestError", False)
except openai.BadRequestError as error:
    check("a bad request raises BadRequestError", error.status_code == 400 and error.param == "messages", str(error))


def pcm24k(path):
    """The WAV at `path` as 16-bit PCM at 24 kHz, the realtime API's input."""
    with wave.open(path) as wav:
        rate, frames = wav.getframerate(), wav.readframes(wav.getnframes())
    samples = numpy.frombuffer(frames, dtype="<i2").astype(numpy.float64)
    times = numpy.arange(0, len(samples) / rate, 1 / 24000)
    resampled = numpy.interp(times, numpy.arange(len(samples)) / rate, samples)
    return resampled.astype("<i2").tobytes() + bytes(2 * 24000 * 3 // 2)  # then 1.5 s of silence


def realtime_turn(connection):
    """Reads events until the response is done: (user transcript, reply text, audio seconds, errors, status)."""
    heard, said, audio, errors, status = "", "", 0, [], None
    for event in connection:
        if event.type == "conversation.item.input_audio_transcription.completed":
            heard = event.transcript
        elif event.type == "response.output_audio_transcript.delta":
            said += event.delta
        elif event.type == "response.output_audio.delta":
            audio += len(base64.b64decode(event.delta)) / 2 / 24000
        elif event.type == "error":
            errors.append(event.error.message)
        elif event.type == "response.done":
            status = event.response.status
            break
    return heard, said, audio, errors, status


with client.realtime.connect(model="auto") as connection:
    created = connection.recv()
    check("realtime session.created", created.type == "session.created", created.type)
    connection.session.update(session={"type": "realtime", "instructions": "Answer in one short sentence.",
                                       "audio": {"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 800}}}})
    pcm = pcm24k(question)
    for start in range(0, len(pcm), 4800):
        connection.input_audio_buffer.append(audio=base64.b64encode(pcm[start:start + 4800]).decode())
    heard, said, audio, errors, status = realtime_turn(connection)
    check("realtime transcribes the spoken question", "france" in heard.lower(), heard)
    check("realtime answers it aloud", "Paris" in said and audio > 0.5 and status == "completed",
          f"{said!r}, {audio:.1f} s, {status}, errors {errors}")
    connection.conversation.item.create(item={"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "And the capital of Italy?"}]})
    connection.response.create()
    _, said, audio, errors, status = realtime_turn(connection)
    check("realtime answers a typed message", "Rome" in said and status == "completed", f"{said!r}, {status}, errors {errors}")

print(f"OpenAI SDK checks: {len(checks) - len(failures)} of {len(checks)} as expected", flush=True)
sys.exit(1 if failures else 0)
