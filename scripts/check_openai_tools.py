#!/usr/bin/env python3
"""Function calling through a running `parley serve`, driven by the official OpenAI Python SDK
(and LangChain's ChatOpenAI when langchain-openai is installed), unchanged.

Usage: check_openai_tools.py BASE_URL API_KEY [QUESTION_WAV]

A tool round trip whole and streamed (the model calls the tool, the client runs it, sends the
result, and the model answers with it), two calls in one reply (parallel), and the errors a
bad tool request gets; with QUESTION_WAV, a spoken question through the SDK's realtime client
with a tool in session.update: the function call, its output sent back, and the spoken answer.
Prints one line per check and exits 1 if any failed. Run by the Swift
test suite (ParleyServerTests) against a `parley serve` child on the on-device model.
"""
import base64
import json
import sys
import wave

import numpy
import openai

base_url, api_key = sys.argv[1:3]
question_wav = sys.argv[3] if len(sys.argv) > 3 else None
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=180)
checks, failures = [], []


def check(name, passed, detail=""):
    print(f"{'ok' if passed else 'FAILED'}: {name}" + (f" ({detail})" if detail else ""), flush=True)
    checks.append(name)
    if not passed:
        failures.append(name)


weather = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city, e.g. Paris"},
                                                     "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                   "required": ["city", "unit"], "additionalProperties": False}}}
timer = {"type": "function", "function": {
    "name": "set_timer", "description": "Starts a kitchen timer.",
    "parameters": {"type": "object", "properties": {"minutes": {"type": "integer", "minimum": 1, "maximum": 120}},
                   "required": ["minutes"]}}}


def run_tool(call):
    """What the client's tool answers."""
    arguments = json.loads(call.function.arguments)
    if call.function.name == "get_weather":
        return json.dumps({"city": arguments["city"], "temperature": 21, "unit": arguments["unit"], "sky": "sunny"})
    return json.dumps({"started": True, "minutes": arguments["minutes"]})


question = [{"role": "system", "content": "You are a helpful assistant. Use the tools."},
            {"role": "user", "content": "What is the weather in Paris right now?"}]

# Whole: the call, then the answer from its result.
first = client.chat.completions.create(model="auto", messages=question, tools=[weather, timer], tool_choice="required",
                                       temperature=0, max_tokens=96)
choice = first.choices[0]
calls = choice.message.tool_calls or []
check("a tool call comes back", choice.finish_reason == "tool_calls" and len(calls) >= 1,
      f"{choice.finish_reason}, {choice.message}")
arguments = {}
if calls:
    try:
        arguments = json.loads(calls[0].function.arguments)
    except ValueError:
        arguments = None
check("its arguments are valid JSON of the tool's schema",
      calls and calls[0].function.name in ("get_weather", "set_timer") and isinstance(arguments, dict)
      and (calls[0].function.name != "get_weather" or (isinstance(arguments.get("city"), str) and arguments.get("unit") in ("celsius", "fahrenheit"))),
      calls[0].function.arguments if calls else "")
check("calls have ids and type function", all(call.id and call.type == "function" for call in calls))
history = question + [choice.message.model_dump(exclude_none=True)] + [
    {"role": "tool", "tool_call_id": call.id, "content": run_tool(call)} for call in calls]
answer = client.chat.completions.create(model="auto", messages=history, tools=[weather, timer], temperature=0, max_tokens=64)
text = answer.choices[0].message.content or ""
check("the model answers after the tool's result", answer.choices[0].finish_reason in ("stop", "length") and text.strip() != "", text)

# Streamed: the call's pieces assembled as the SDK documents (index, id and name first, arguments after).
assembled, finish = {}, None
for chunk in client.chat.completions.create(model="auto", messages=question, tools=[weather], stream=True,
                                            tool_choice={"type": "function", "function": {"name": "get_weather"}},
                                            temperature=0, max_tokens=96):
    if not chunk.choices:
        continue
    delta = chunk.choices[0].delta
    for piece in delta.tool_calls or []:
        call = assembled.setdefault(piece.index, {"id": None, "name": "", "arguments": ""})
        if piece.id:
            call["id"] = piece.id
        if piece.function and piece.function.name:
            call["name"] += piece.function.name
        if piece.function and piece.function.arguments:
            call["arguments"] += piece.function.arguments
    finish = chunk.choices[0].finish_reason or finish
streamed = list(assembled.values())
try:
    streamed_arguments = json.loads(streamed[0]["arguments"]) if streamed else None
except ValueError:
    streamed_arguments = None
check("a streamed call assembles into the named function", finish == "tool_calls" and len(streamed) == 1
      and streamed[0]["id"] and streamed[0]["name"] == "get_weather" and isinstance(streamed_arguments, dict)
      and "city" in streamed_arguments, f"{finish}, {streamed}")

# Parallel: two questions, two calls in one reply (required keeps the small model on task).
both = [{"role": "user", "content": "What's the weather in Paris, and in Rome?"}]
parallel = client.chat.completions.create(model="auto", messages=both, tools=[weather], tool_choice="required",
                                          parallel_tool_calls=True, temperature=0, max_tokens=160)
parallel_calls = parallel.choices[0].message.tool_calls or []
check("parallel calls come back as several calls, each valid", len(parallel_calls) >= 1
      and all(json.loads(call.function.arguments).get("city") for call in parallel_calls),
      ", ".join(call.function.arguments for call in parallel_calls))
print(f"parallel calls in one reply: {len(parallel_calls)}", flush=True)
follow_up = both + [parallel.choices[0].message.model_dump(exclude_none=True)] + [
    {"role": "tool", "tool_call_id": call.id, "content": run_tool(call)} for call in parallel_calls]
check("and the model answers after all their results", bool(client.chat.completions.create(
    model="auto", messages=follow_up, tools=[weather], temperature=0, max_tokens=64).choices[0].message.content))

# Bad input: one clear 400 each.
for name, kwargs, param in [
    ("a tool_choice naming an unknown tool", {"tools": [weather], "tool_choice": {"type": "function", "function": {"name": "nope"}}}, "tool_choice"),
    ("parameters that are not an object schema", {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "string"}}}]}, "tools[0].function"),
]:
    try:
        client.chat.completions.create(model="auto", messages=question, **kwargs)
        check(f"{name} is a 400", False)
    except openai.BadRequestError as error:
        check(f"{name} is a 400", error.status_code == 400 and error.param == param, str(error))
try:
    client.chat.completions.create(model="auto", messages=question + [{"role": "tool", "tool_call_id": "call_x", "content": "{}"}])
    check("a tool message answering no call is a 400", False)
except openai.BadRequestError as error:
    check("a tool message answering no call is a 400", error.status_code == 400 and "tool_call_id" in (error.param or ""), str(error))

try:
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_openai import ChatOpenAI
except ImportError:
    print("langchain-openai is not installed: LangChain check skipped", flush=True)
else:
    def get_weather(city: str, unit: str) -> str:
        """Current weather for a city (unit: celsius or fahrenheit)."""
        return json.dumps({"city": city, "temperature": 21, "unit": unit})

    llm = ChatOpenAI(base_url=base_url, api_key=api_key, model="auto", temperature=0, max_tokens=96, max_retries=0)
    bound = llm.bind_tools([get_weather], tool_choice="get_weather")
    messages = [HumanMessage("What is the weather in Paris?")]
    reply = bound.invoke(messages)
    check("LangChain bind_tools gets a tool call", len(reply.tool_calls) == 1 and reply.tool_calls[0]["name"] == "get_weather"
          and "city" in reply.tool_calls[0]["args"], str(reply.tool_calls))
    if reply.tool_calls:
        call = reply.tool_calls[0]
        messages += [reply, ToolMessage(get_weather(**call["args"]) if set(call["args"]) == {"city", "unit"} else "{}", tool_call_id=call["id"])]
        final = llm.bind_tools([get_weather]).invoke(messages)
        check("LangChain's round trip ends in an answer", isinstance(final.content, str) and final.content.strip() != "", repr(final.content))

if question_wav:
    def pcm24k(path):
        """The WAV at `path` as 16-bit PCM at 24 kHz, then 1.5 s of silence."""
        with wave.open(path) as wav:
            rate, frames = wav.getframerate(), wav.readframes(wav.getnframes())
        samples = numpy.frombuffer(frames, dtype="<i2").astype(numpy.float64)
        times = numpy.arange(0, len(samples) / rate, 1 / 24000)
        resampled = numpy.interp(times, numpy.arange(len(samples)) / rate, samples)
        return resampled.astype("<i2").tobytes() + bytes(2 * 24000 * 3 // 2)

    def until_done(connection):
        """Events up to response.done: (function calls, spoken transcript, audio seconds, errors)."""
        calls, said, audio, errors = [], "", 0.0, []
        for event in connection:
            if event.type == "response.function_call_arguments.done":
                calls.append(event)
            elif event.type == "response.output_audio_transcript.delta":
                said += event.delta
            elif event.type == "response.output_audio.delta":
                audio += len(base64.b64decode(event.delta)) / 2 / 24000
            elif event.type == "error":
                errors.append(event.error.message)
            elif event.type == "response.done":
                return calls, said, audio, errors, event.response
        return calls, said, audio, errors, None

    capital = {"type": "function", "name": "lookup_capital", "description": "The capital city of a country, with facts about it.",
               "parameters": {"type": "object", "properties": {"country": {"type": "string"}}, "required": ["country"]}}
    with client.realtime.connect(model="auto") as connection:
        connection.recv()
        connection.session.update(session={"type": "realtime", "instructions": "Answer in one short sentence.",
                                           "tools": [capital], "tool_choice": "required",
                                           "audio": {"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 800}}}})
        pcm = pcm24k(question_wav)
        for start in range(0, len(pcm), 4800):
            connection.input_audio_buffer.append(audio=base64.b64encode(pcm[start:start + 4800]).decode())
        calls, _, _, errors, response = until_done(connection)
        try:
            call_arguments = json.loads(calls[0].arguments) if calls else {}
        except ValueError:
            call_arguments = None
        check("realtime: the spoken question gets a function call", len(calls) == 1 and calls[0].name == "lookup_capital"
              and isinstance(call_arguments, dict) and isinstance(call_arguments.get("country"), str),
              f"{[(call.name, call.arguments) for call in calls]}, errors {errors}")
        check("realtime: response.done lists the function_call item", response is not None
              and any(item.type == "function_call" for item in response.output), str(response.output if response else None))
        if calls:
            connection.conversation.item.create(item={"type": "function_call_output", "call_id": calls[0].call_id,
                                                      "output": json.dumps({"capital": "Paris", "population": 2102650})})
            connection.response.create()
            _, said, audio, errors, response = until_done(connection)
            check("realtime: the answer after the output is spoken and uses it", "Paris" in said and audio > 0.5
                  and response is not None and response.status == "completed", f"{said!r}, {audio:.1f} s, errors {errors}")
            print(f"realtime answer after the tool: {said!r}", flush=True)

print(f"OpenAI tool checks: {len(checks) - len(failures)} of {len(checks)} as expected", flush=True)
sys.exit(1 if failures else 0)
