#!/usr/bin/env python3
"""`parley mcp` driven by a third-party MCP client: the official Python SDK (PyPI `mcp`), unchanged.

Usage: check_mcp_client.py PARLEY_BINARY DATA_DIRECTORY

Starts `PARLEY_BINARY mcp` as a stdio server on the (empty or not) data directory, as any MCP
host would from {"mcpServers": {"parley": {"command": ..., "args": ["mcp"]}}}; checks the
handshake, the tool list (the built-ins, each with an object schema), a call with its result,
and that arguments against the schema and an unknown tool are answered as tool errors.
Prints one line per check and exits 1 if any failed. Run by the Swift test suite
(ParleyMCPTests) when the project's venv has the SDK (scripts/setup installs it).
"""
import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

binary, home = sys.argv[1:3]
failures = []


def check(name, passed, detail=""):
    print(f"{'ok' if passed else 'FAILED'}: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not passed:
        failures.append(name)


def text_of(result):
    return "\n".join(part.text for part in result.content if getattr(part, "type", "") == "text")


async def main():
    server = StdioServerParameters(command=binary, args=["mcp", "--database", os.path.join(home, "parley.sqlite")],
                                   env={"PARLEY_HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            hello = await asyncio.wait_for(session.initialize(), 60)
            check("handshake: the server is parley and offers tools",
                  hello.server_info.name == "parley" and hello.capabilities.tools is not None, str(hello.server_info))

            listed = (await session.list_tools()).tools
            names = [tool.name for tool in listed]
            check("tools/list: the built-ins", names == ["search_materials", "upcoming_assignments", "current_date_time"], str(names))
            check("tools/list: each takes a JSON object", all(tool.input_schema.get("type") == "object" for tool in listed))

            tokyo = await session.call_tool("current_date_time", {"place": "Tokyo"})
            check("tools/call: Tokyo's time", not tokyo.is_error and text_of(tokyo).startswith("In Tokyo it is "), text_of(tokyo))

            search = await session.call_tool("search_materials", {"query": "photosynthesis"})
            check("tools/call: a search of no materials says so", not search.is_error and "saved materials" in text_of(search), text_of(search))

            wrong = await session.call_tool("current_date_time", {"place": 5})
            check("tools/call: arguments against the schema are a tool error", bool(wrong.is_error), text_of(wrong))

            unknown = await session.call_tool("launch_rocket", {})
            check("tools/call: an unknown tool is a tool error", bool(unknown.is_error) and "launch_rocket" in text_of(unknown), text_of(unknown))


asyncio.run(main())
passed = 7 - len(failures)
print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
