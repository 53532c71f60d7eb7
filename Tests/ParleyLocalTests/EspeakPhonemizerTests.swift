import Foundation
import Testing
@testable import ParleyLocal
import ParleyProcess

/// The neural voice's phonemizer: espeak-ng kept running and given a line per request.
@Suite("espeak-ng phonemes from a kept program")
struct EspeakPhonemizerTests {
    @Test("a kept program gives the same phonemes as a run for the text alone, request after request, in two voices")
    func sameAsOnce() async throws {
        let phonemizer = EspeakPhonemizer()
        _ = try #require(ChildProcess.locate(phonemizer.executable), "espeak-ng is not installed: run scripts/setup")
        let texts = [
            "The capital",
            "of France is Paris.",
            "Hello there, how are you? I'm fine; thanks! Dr. Smith paid $3.50 at 221B Baker St.",
            "It costs 3.5 euros, or 1,234 dollars in 2024.",
            "A line break\nin the middle, and the marker's words zyxq QXYZ in the text.",
            "",
            String(repeating: "word ", count: 250),  // longer than a line the kept program is given
        ]
        for voice in ["en-us", "en-gb"] {
            for text in texts + texts.reversed() {
                let kept = try await phonemizer.phonemes(text, voice: voice)
                let once = try await phonemizer.phonemizedOnce(text, voice: voice)
                #expect(kept == once, "\(voice): \(text)")
            }
        }
        #expect(phonemizer.keptVoices == ["en-us", "en-gb"])
        #expect(try await phonemizer.phonemes("The capital of France is Paris.", voice: "en-us") == "ðə kˈæpɪɾəl ʌv fɹˈæns ɪz pˈæɹɪs.")
    }

    @Test("a line program answers each line; one that exits gives no answer, at once")
    func lineProgram() throws {
        let cat = try #require(LineProcess(executable: "/bin/cat", arguments: [], marker: "END"))
        #expect(cat.answer("hello") == ["hello"])
        #expect(cat.answer("") == [""])
        #expect(cat.answer("again") == ["again"])
        // Answers the marker, then one request, then exits.
        let once = try #require(
            LineProcess(executable: "/bin/sh", arguments: ["-c", "read m; echo \"$m\"; read l; echo \"$l\"; read m; echo \"$m\""], marker: "END"))
        #expect(once.answer("one") == ["one"])
        let started = ContinuousClock.now
        #expect(once.answer("two") == nil)
        #expect(started.duration(to: .now) < LineProcess.timeout)
        #expect(LineProcess(executable: "/nonexistent/program", arguments: [], marker: "END") == nil)
    }
}
