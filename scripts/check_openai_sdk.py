#!/usr/bin/env python3
"""Drives a running `parley serve` with the official OpenAI Python SDK, unchanged.

Usage: check_openai_sdk.py BASE_URL API_KEY QUESTION_WAV

Chat (whole and streamed), transcription (json and text), speech (WAV), the model list and
the SDK's error classes (a wrong key, a bad request). Prints one line per check and exits 1 if
any failed. Run by the Swift test suite (ParleyServerTests) against a `parley serve` child.
"""
import io
import sys
import wave

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

print(f"OpenAI SDK checks: {len(checks) - len(failures)} of {len(checks)} as expected", flush=True)
sys.exit(1 if failures else 0)
