#!/usr/bin/env python3
"""A small MCP server over Streamable HTTP, on the official MCP Python SDK: the other end of
ParleyMCPTests' HTTP round trip.

Usage: mcp_http_server.py sse|json

Listens on a free loopback port, printed first as `PORT n`, at /mcp; answers requests with an
event stream (sse, the SDK's default) or a JSON body (json). One tool, get_weather(city), whose
answer is made up and says so. Runs until it is stopped.
"""
import socket
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("weather")


@server.tool()
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"Made-up weather for the test: sunny in {city}, 21 C."


probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
print(f"PORT {port}", flush=True)
server.run("streamable-http", host="127.0.0.1", port=port, json_response=sys.argv[1] == "json")
