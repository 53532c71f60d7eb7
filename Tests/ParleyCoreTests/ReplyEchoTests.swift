import Testing
@testable import ParleyCore

@Suite("Telling the reply's own words, heard back from the speakers")
struct ReplyEchoTests {
    let reply = "The largest ocean on Earth is the Pacific Ocean. It covers about a third of the planet's surface."

    @Test("words of the reply, as a recogniser hears them (cut, mis-cased, a word wrong), are its echo",
          arguments: ["the largest ocean on earth", "Is the Pacific Ocean.", "It covers about a third of the planet surface",
                      "ocean on earth is the specific ocean", "It covers about a third."])
    func echoes(_ heard: String) {
        #expect(ReplyEcho().isEcho(heard, of: reply))
    }

    @Test("words the user means are no echo, even where they share a few of the reply's",
          arguments: ["Stop, wait, tell me something else.", "No, the largest lake.", "What about the Atlantic?",
                      "Pacific?", "No.", "", "Actually, which is the smallest one?"])
    func meant(_ heard: String) {
        #expect(!ReplyEcho().isEcho(heard, of: reply))
    }

    @Test("nothing is an echo of a reply that has written nothing yet")
    func emptyReply() {
        #expect(!ReplyEcho().isEcho("the largest ocean", of: ""))
    }

    @Test("the words are matched in order, and only the reply's end is compared when it is long")
    func orderAndWindow() {
        #expect(ReplyEcho.commonInOrder(["a", "b", "c"], ["c", "b", "a"]) == 1)
        #expect(ReplyEcho.commonInOrder(["a", "b", "c"], ["a", "x", "b", "y", "c"]) == 3)
        #expect(ReplyEcho.words("Don't stop — it's 3 o'clock!") == ["don't", "stop", "it's", "3", "o'clock"])
        let long = "the largest ocean " + Array(repeating: "and more words", count: 200).joined(separator: " ")
        #expect(ReplyEcho().isEcho("the largest ocean", of: long) == false)
        #expect(ReplyEcho(replyWindow: 1000).isEcho("the largest ocean", of: long))
    }
}
