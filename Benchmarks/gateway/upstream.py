"""Writes the static upstream's answers: a chat completion and a streamed one (SSE), in OpenAI's shapes."""
import json
import sys

directory = sys.argv[1]
reply = "Hello! This canned answer stands in for a model, so that only the proxy is measured."
whole = {
    "id": "chatcmpl-upstream", "object": "chat.completion", "created": 1700000000, "model": "fake",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 20, "total_tokens": 32},
}
with open(f"{directory}/chat.json", "w") as out:
    json.dump(whole, out)
words = reply.split(" ")
with open(f"{directory}/stream.sse", "w") as out:
    for index, word in enumerate(words):
        delta = {"content": (word if index == 0 else " " + word)}
        if index == 0:
            delta["role"] = "assistant"
        chunk = {"id": "chatcmpl-upstream", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake",
                 "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        out.write(f"data: {json.dumps(chunk)}\n\n")
    last = {"id": "chatcmpl-upstream", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": len(words), "total_tokens": 12 + len(words)}}
    out.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n")
