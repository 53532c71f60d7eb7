#!/usr/bin/env python3
"""Self-test of scripts/check-apple: each planted error in an Apple-only file (an ambiguous
name, a non-Sendable capture in a @Sendable closure, a non-Sendable value stored under a lock
while the caller keeps it, a wrong argument label, a switch over a framework's enum without
`@unknown default`) makes the check fail with that error, and the same
code written correctly passes. Run by scripts/test; uses check-apple's cached modules."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-apple")

PLANTS = {
    "an ambiguous name (CoreAudioTypes' AudioBuffer and ParleyCore's)": (
        "'AudioBuffer' is ambiguous",
        """#if canImport(AVFoundation)
import AVFoundation
import ParleyCore
func plantedAmbiguity(_ audio: AudioBuffer) -> Int { 0 }
#endif
""",
        """#if canImport(AVFoundation)
import AVFoundation
import ParleyCore
func plantedAmbiguity(_ audio: ParleyCore.AudioBuffer) -> Int { audio.samples.count }
#endif
"""),
    "a non-Sendable recognition task captured in a @Sendable closure": (
        "non-Sendable",
        """#if canImport(Speech)
import Speech
func plantedCapture(_ task: SFSpeechRecognitionTask) -> @Sendable () -> Void {
    { task.cancel() }
}
#endif
""",
        """#if canImport(Speech)
import ParleyAppleSupport
import Speech
func plantedCapture(_ task: sending SFSpeechRecognitionTask) -> @Sendable () -> Void {
    let held = Locked<SFSpeechRecognitionTask?>(task)
    return { held.withLock { $0?.cancel() } }
}
#endif
"""),
    "a non-Sendable value stored under a lock while the caller keeps it (region isolation: only emitting a module finds it)": (
        "cannot be task-isolated",
        """#if canImport(Speech)
import ParleyAppleSupport
import Speech
func plantedRegion(_ held: Locked<SFSpeechRecognitionTask?>) -> SFSpeechRecognitionTask {
    let task = SFSpeechRecognitionTask()
    held.withLock { $0 = task }
    return task
}
#endif
""",
        """#if canImport(Speech)
import ParleyAppleSupport
import Speech
func plantedRegion(_ held: Locked<SFSpeechRecognitionTask?>) {
    held.withLock { $0 = SFSpeechRecognitionTask() }
}
#endif
"""),
    "a wrong argument label": (
        "argument label",
        """#if canImport(AVFoundation)
import AVFoundation
func plantedLabel() -> AVAudioFormat? { AVAudioFormat(standardFormatWithSampleRate: 16_000, channelCount: 1) }
#endif
""",
        """#if canImport(AVFoundation)
import AVFoundation
func plantedLabel() -> AVAudioFormat? { AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1) }
#endif
"""),
    "a switch over a framework's enum without @unknown default": (
        "@unknown default",
        """#if canImport(FoundationModels)
import FoundationModels
@available(iOS 26.0, macOS 26.0, *)
func plantedSwitch() -> Bool {
    switch SystemLanguageModel.default.availability {
    case .available: return true
    case .unavailable: return false
    }
}
#endif
""",
        """#if canImport(FoundationModels)
import FoundationModels
@available(iOS 26.0, macOS 26.0, *)
func plantedSwitch() -> Bool {
    switch SystemLanguageModel.default.availability {
    case .available: return true
    case .unavailable: return false
    @unknown default: return false
    }
}
#endif
"""),
}


def check(text):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "Planted.swift")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        done = subprocess.run([CHECK, "--plant", path], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


def expect(condition, message, output=""):
    if not condition:
        print(f"FAIL: {message}\n{output[-3000:]}")
        sys.exit(1)
    print(f"ok: {message}")


status, output = check("// nothing planted\n")
expect(status == 0, "the check passes on the code as it is", output)
for what, (error, wrong, right) in PLANTS.items():
    status, output = check(wrong)
    expect(status != 0 and "Planted.swift" in output and error in output, f"{what} fails the check ({error})", output)
    status, output = check(right)
    expect(status == 0, f"the same code written correctly passes ({what})", output)
