#!/usr/bin/env python3
"""OpenAI's Responses API through a running `parley serve`, driven by the official OpenAI
Python SDK and by the OpenAI Agents SDK (openai-agents), unchanged.

Usage: check_openai_responses.py BASE_URL API_KEY

A response made whole and streamed, one that continues it (previous_response_id), read back
and deleted, a function tool round trip, and an Agents SDK agent that calls a function tool
and answers. Prints one line per check and exits 1 if any failed. Run by the Swift test suite
(ParleyServerTests) against a `parley serve` child on the on-device model.
"""
import asyncio
import json
import sys

import openai

base_url, api_key = sys.argv[1:3]
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=180)
failures = []


def check(name, passed, detail=""):
    print(f"{'ok' if passed else 'FAILED'}: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not passed:
        failures.append(name)


first = client.responses.create(model="auto", instructions="Answer in one short sentence.",
                                input="What is the capital of France?", temperature=0, max_output_tokens=40)
check("a response answers", first.status == "completed" and "paris" in first.output_text.lower(), repr(first.output_text))

second = client.responses.create(model="auto", input="Repeat the name of that city.", previous_response_id=first.id,
                                 temperature=0, max_output_tokens=30)
check("a continued response remembers the first", "paris" in second.output_text.lower(), repr(second.output_text))

deltas, completed = [], None
with client.responses.stream(model="auto", input="Say hello in French.", temperature=0, max_output_tokens=20) as stream:
    for event in stream:
        if event.type == "response.output_text.delta":
            deltas.append(event.delta)
        elif event.type == "response.completed":
            completed = event.response
check("streamed: deltas join to the completed text", completed is not None and "".join(deltas) == completed.output_text and deltas,
      repr("".join(deltas)))

read = client.responses.retrieve(first.id)
check("a kept response reads back", read.output_text == first.output_text)
client.responses.delete(second.id)
try:
    client.responses.retrieve(second.id)
    check("a deleted response is gone", False)
except openai.NotFoundError:
    check("a deleted response is gone", True)

weather = {"type": "function", "name": "get_weather", "description": "Current weather for a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False}}
called = client.responses.create(model="auto", input="What is the weather in Paris?", tools=[weather], tool_choice="required",
                                 temperature=0)
calls = [item for item in called.output if item.type == "function_call"]
check("a function tool is called", len(calls) == 1 and calls[0].name == "get_weather" and "city" in json.loads(calls[0].arguments),
      calls[0].arguments if calls else "no call")
if calls:
    answer = client.responses.create(model="auto", previous_response_id=called.id, tools=[weather], temperature=0,
                                     input=[{"type": "function_call_output", "call_id": calls[0].call_id,
                                             "output": json.dumps({"temperature_celsius": 21, "sky": "sunny"})}])
    check("the output of the call is answered in words", answer.output_text.strip() != "", repr(answer.output_text))
try:
    client.responses.create(model="auto", input="Hi", previous_response_id="resp_999999_999999")
    check("an unknown previous_response_id is a 404", False)
except openai.NotFoundError:
    check("an unknown previous_response_id is a 404", True)

try:
    from agents import Agent, ModelSettings, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled
except ImportError:
    print("skipped: openai-agents is not installed")
else:
    set_tracing_disabled(True)
    asked = []

    @function_tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        asked.append(city)
        return f"It is 21 degrees and sunny in {city}."

    agent = Agent(name="Assistant", instructions="Answer briefly. Use the tools.", tools=[get_weather],
                  model=OpenAIResponsesModel(model="auto", openai_client=openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0)),
                  model_settings=ModelSettings(tool_choice="required", temperature=0))
    result = asyncio.run(Runner.run(agent, "What is the weather in Paris?", max_turns=4))
    check("openai-agents: the agent called its function tool and answered", len(asked) >= 1 and bool(str(result.final_output).strip()),
          f"asked {asked}, answered {str(result.final_output)[:80]!r}")

sys.exit(1 if failures else 0)
