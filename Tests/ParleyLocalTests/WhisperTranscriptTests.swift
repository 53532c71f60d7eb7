import Testing
@testable import ParleyLocal

@Suite("Whisper's transcripts")
struct WhisperTranscriptTests {
    @Test(
        "tags for non-speech are not words",
        arguments: ["[BLANK_AUDIO]", "(music)", " [ Silence ] ", "[BLANK_AUDIO] [BLANK_AUDIO].", "(wind blowing)", "", " . "])
    func nonSpeech(text: String) {
        #expect(WhisperSpeechToText.isNonSpeechMarker(text))
    }

    @Test("words are words, tags around them or not", arguments: ["Hello.", "(laughs) I agree (laughs)", "[MUSIC] hello", "3 (three)"])
    func speech(text: String) {
        #expect(!WhisperSpeechToText.isNonSpeechMarker(text))
    }

    @Test("the encoder's context fits the clip, plus a margin, and is the whole window when that is not shorter")
    func audioContext() {
        // 3 s: 150 positions of audio and the margin.
        #expect(WhisperContext.audioContext(samples: 48_000, modelContext: 1_500) == 150 + Int32(WhisperContext.audioContextMargin))
        // A part of a position counts as one.
        #expect(WhisperContext.audioContext(samples: 48_001, modelContext: 1_500) == 151 + Int32(WhisperContext.audioContextMargin))
        // 25 s and 30 s: the fitted context would be no shorter than the model's.
        #expect(WhisperContext.audioContext(samples: 400_000, modelContext: 1_500) == 0)
        #expect(WhisperContext.audioContext(samples: 480_000, modelContext: 1_500) == 0)
        #expect(WhisperContext.audioContext(samples: 2_000_000, modelContext: 1_500) == 0)
    }

    @Test("word edits count the words inserted, removed or replaced")
    func wordEdits() {
        #expect(TestEnvironment.wordEdits("What is the capital of France?", "what is the capital of france") == 0)
        #expect(TestEnvironment.wordEdits("What is the capital on France?", "What is the capital of France?") == 1)
        #expect(TestEnvironment.wordEdits("What is capital France", "What is the capital of France") == 2)
        #expect(TestEnvironment.wordEdits("", "two words") == 2)
        #expect(TestEnvironment.wordEdits("two words", "") == 2)
    }
}
