import Testing
@testable import ParleyLocal

@Suite("Whisper's transcripts")
struct WhisperTranscriptTests {
    @Test("tags for non-speech are not words", arguments: ["[BLANK_AUDIO]", "(music)", " [ Silence ] ", "[BLANK_AUDIO] [BLANK_AUDIO].", "(wind blowing)", "", " . "])
    func nonSpeech(text: String) {
        #expect(WhisperSpeechToText.isNonSpeechMarker(text))
    }

    @Test("words are words, tags around them or not", arguments: ["Hello.", "(laughs) I agree (laughs)", "[MUSIC] hello", "3 (three)"])
    func speech(text: String) {
        #expect(!WhisperSpeechToText.isNonSpeechMarker(text))
    }
}
