#!/usr/bin/env python3
"""Checks that Parley's libraries stay buildable for Apple platforms, which this project's
machines cannot compile for:

  1. the portable targets use no platform-only API outside a `#if` branch for a platform that
     has it: Foundation.Process (Linux and macOS only), /proc and /sys (Linux),
     homeDirectoryForCurrentUser (macOS and Linux), `import Glibc`, `import FoundationNetworking`;
  2. every file of the Apple-only targets is wholly inside one `#if canImport(...)` / `#if os(...)`;
  3. with --example-dependencies FILE (the JSON of `swift package show-dependencies --format json`
     in an app that uses the libraries), none of the server's, the command line's or PostgreSQL's
     packages is resolved.

Usage: scripts/check_portability.py [--root DIR] [--example-dependencies FILE]
Prints one line per finding and exits 1 when there is any.
"""
import argparse
import json
import os
import re
import sys

PORTABLE = ["ParleyCore", "ParleySilero", "ParleyAppleSupport", "ParleyCloud", "ParleyData", "ParleyStore", "ParleyModels", "ParleyTasks", "ParleyMindMap",
            "ParleyRuntime", "ParleyLocal", "ParleyProcess", "ParleyMaterials", "ParleyGoogle"]
APPLE_ONLY = ["ParleyApple"]

# (what, pattern on a code line, pattern a guarding #if condition must match, why)
RULES = [
    ("Process", re.compile(r"\b(Foundation\.)?Process\s*\(\s*\)"), re.compile(r"os\((Linux|macOS)\)"),
     "Foundation.Process exists only on Linux and macOS: guard it with #if os(Linux) || os(macOS)"),
    ("/proc or /sys", re.compile(r"\"/(proc|sys)/"), re.compile(r"os\(Linux\)"),
     "/proc and /sys exist only on Linux: guard the read with #if os(Linux)"),
    ("homeDirectoryForCurrentUser", re.compile(r"\bhomeDirectoryForCurrentUser\b"), re.compile(r"os\((macOS|Linux)\)"),
     "homeDirectoryForCurrentUser does not exist on iOS: use NSHomeDirectory() or guard it"),
    ("import Glibc", re.compile(r"^\s*import\s+Glibc\b"), re.compile(r"canImport\(Glibc\)|os\(Linux\)"),
     "Glibc exists only on Linux: #if canImport(Glibc) … #elseif canImport(Darwin) import Darwin"),
    ("import FoundationNetworking", re.compile(r"^\s*import\s+FoundationNetworking\b"),
     re.compile(r"canImport\(FoundationNetworking\)|os\(Linux\)"),
     "FoundationNetworking exists only on Linux: guard it with #if canImport(FoundationNetworking)"),
]

# Packages only the server, the command line, MCP (swift-sdk) and PostgreSQL need (by package identity).
# (swift-service-lifecycle and swift-configuration stay: swift-websocket and async-http-client,
# which the cloud providers use, and the runtime's settings need them.)
SERVER_ONLY = {"hummingbird", "hummingbird-websocket", "postgres-nio", "swift-argument-parser", "swift-prometheus", "swift-metrics", "swift-sdk"}

DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")


def code_lines(text):
    """(number, line, enclosing conditions) for each line that is code, not a comment."""
    stack = []  # each entry: the condition of the branch the line is in (an #else is "!" + the if's)
    in_block_comment = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if in_block_comment:
            if "*/" in stripped:
                in_block_comment = False
            continue
        if stripped.startswith("/*"):
            in_block_comment = "*/" not in stripped
            continue
        if stripped.startswith("//"):
            continue
        directive = DIRECTIVE.match(line)
        if directive:
            kind, condition = directive.group(1), directive.group(2).strip()
            if kind == "if":
                stack.append([condition, condition])
            elif kind == "elseif" and stack:
                stack[-1][0] = condition
            elif kind == "else" and stack:
                stack[-1][0] = "!(" + stack[-1][1] + ")"
            elif kind == "endif" and stack:
                stack.pop()
            continue
        yield number, line, [entry[0] for entry in stack]


def guarded(conditions, allowed):
    """Whether a branch condition that holds only where the API exists encloses the line."""
    return any(not condition.startswith("!") and allowed.search(condition) and "!" not in condition for condition in conditions)


def swift_files(root, targets):
    """(path relative to root, text) of every Swift file of `targets`."""
    for target in targets:
        for directory, _, files in os.walk(os.path.join(root, "Sources", target)):
            for name in sorted(files):
                if name.endswith(".swift"):
                    path = os.path.join(directory, name)
                    with open(path, encoding="utf-8") as handle:
                        yield os.path.relpath(path, root), handle.read()


def check_portable(root, findings):
    for relative, text in swift_files(root, PORTABLE):
        for number, line, conditions in code_lines(text):
            for what, pattern, allowed, why in RULES:
                if pattern.search(line) and not guarded(conditions, allowed):
                    findings.append(f"{relative}:{number}: {what} outside a guarded branch: {why}")


def check_apple_only(root, findings):
    for relative, text in swift_files(root, APPLE_ONLY):
        lines = [line.strip() for line in text.splitlines()]
        meaningful = [(index, line) for index, line in enumerate(lines) if line and not line.startswith("//")]
        if not meaningful:
            continue
        first, last = meaningful[0][1], meaningful[-1][1]
        if not re.match(r"#if\s+(canImport|os)\(", first) or last != "#endif":
            findings.append(f"{relative}: not wholly inside #if canImport(…) / #if os(…) … #endif (starts “{first[:40]}”)")
            continue
        # The first #if must close on the last line, not earlier.
        depth = 0
        for index, line in meaningful:
            if re.match(r"#if\b", line):
                depth += 1
            elif line.startswith("#endif"):
                depth -= 1
                if depth == 0 and index != meaningful[-1][0]:
                    findings.append(f"{relative}:{index + 1}: code after the guarding #if closes")
                    break


def check_example_dependencies(path, findings):
    with open(path, encoding="utf-8") as handle:
        tree = json.load(handle)
    seen = set()

    def walk(node):
        for dependency in node.get("dependencies", []):
            seen.add(dependency.get("identity", dependency.get("name", "")).lower())
            walk(dependency)
    walk(tree)
    for identity in sorted(seen & SERVER_ONLY):
        findings.append(f"{path}: the example app resolves {identity}, which only the server, the command line or PostgreSQL need")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--example-dependencies")
    arguments = parser.parse_args()
    findings = []
    check_portable(arguments.root, findings)
    check_apple_only(arguments.root, findings)
    if arguments.example_dependencies:
        check_example_dependencies(arguments.example_dependencies, findings)
    for finding in findings:
        print(finding)
    if findings:
        print(f"check_portability: {len(findings)} finding(s)", file=sys.stderr)
        return 1
    print("check_portability: the portable targets use no platform-only API outside guarded branches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
