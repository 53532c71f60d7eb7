#!/usr/bin/env python3
"""Self-test of scripts/check_portability.py: planted violations in a throwaway tree are each
found, and their guarded forms pass. Run by scripts/test."""
import json
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_portability.py")


def run(files, example=None):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as handle:
                handle.write(text)
        arguments = [sys.executable, CHECK, "--root", root]
        if example is not None:
            dependencies = os.path.join(root, "deps.json")
            with open(dependencies, "w", encoding="utf-8") as handle:
                json.dump(example, handle)
            arguments += ["--example-dependencies", dependencies]
        done = subprocess.run(arguments, capture_output=True, text=True)
        return done.returncode, done.stdout


def expect(condition, message):
    if not condition:
        print(f"FAIL: {message}")
        sys.exit(1)
    print(f"ok: {message}")


violations = {
    "Process": 'import Foundation\nfunc f() { let p = Process() }\n',
    "/proc": 'import Foundation\nlet text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)\n',
    "homeDirectoryForCurrentUser": 'import Foundation\nlet home = FileManager.default.homeDirectoryForCurrentUser\n',
    "Glibc": 'import Glibc\n',
    "FoundationNetworking": 'import FoundationNetworking\n',
}
for what, text in violations.items():
    status, output = run({"Sources/ParleyCore/Planted.swift": text})
    expect(status == 1 and "Planted.swift:" in output and what.split()[0].lstrip("/") in output.replace("/proc or /sys", "proc"),
           f"an unguarded {what} in a portable target is found: {output.strip()}")

guarded = ('#if os(Linux) || os(macOS)\nimport Foundation\nfunc f() { let p = Process() }\n#endif\n'
           '#if os(Linux)\nlet t = "/proc/stat"\n#else\nlet t = ""\n#endif\n'
           '#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\nimport Darwin\n#endif\n'
           '// A comment may say Process() and "/proc/meminfo".\n')
status, output = run({"Sources/ParleyCore/Fine.swift": guarded})
expect(status == 0, f"the same APIs inside guarded branches pass: {output.strip()}")

status, output = run({"Sources/ParleyLocal/Else.swift": '#if os(Linux)\nlet a = 1\n#else\nlet t = "/proc/stat"\n#endif\n'})
expect(status == 1, "a /proc read in the #else branch of #if os(Linux) is found")

status, output = run({"Sources/ParleyServer/Server.swift": 'func f() { let p = Process() }\n'})
expect(status == 0, "the server (not a portable target) may run processes")

status, output = run({"Sources/ParleyApple/Speech.swift": 'import Speech\nstruct S {}\n'})
expect(status == 1 and "not wholly inside" in output, "an Apple-target file without a guard is found")
status, output = run({"Sources/ParleyApple/Speech.swift": '#if canImport(Speech)\nimport Speech\n#endif\nstruct Leak {}\n'})
expect(status == 1, "an Apple-target file with code after its guard is found")
status, output = run({"Sources/ParleyApple/Speech.swift": '// Speech\n#if canImport(Speech)\nimport Speech\n#if os(iOS)\nstruct S {}\n#endif\n#endif\n'})
expect(status == 0, "an Apple-target file wholly guarded passes")

tree = {"identity": "hostapp", "dependencies": [{"identity": "parley", "dependencies": [
    {"identity": "swift-nio", "dependencies": []}, {"identity": "hummingbird", "dependencies": []}]}]}
status, output = run({}, example=tree)
expect(status == 1 and "hummingbird" in output, "an example app that resolves hummingbird is found")
tree["dependencies"][0]["dependencies"].pop()
status, output = run({}, example=tree)
expect(status == 0, "an example app without server packages passes")
