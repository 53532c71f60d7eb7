import ParleyRuntime
import Testing

/// Which questions plainly want a built-in tool (and so begin with its call).
@Suite("Built-in tool cues")
struct BuiltInToolCueTests {
    @Test("questions about the user's notes and materials", arguments: [
        "What do my notes say about the field trip?", "what does our class handout say about fractions",
        "Can you check my study guide for the test?", "Is photosynthesis in my biology notes?",
    ])
    func materials(_ question: String) {
        #expect(BuiltInTools.Cues.materials(question))
    }

    @Test("questions about assignments", arguments: [
        "What is due this week?", "Do I have any homework?", "what are my assignments", "Any deadlines coming up?",
    ])
    func assignments(_ question: String) {
        #expect(BuiltInTools.Cues.assignments(question))
    }

    @Test("questions about the date and time", arguments: [
        "What's the date today?", "what day is it", "What time is it?", "What is today's date?", "what is the time right now",
    ])
    func dateTime(_ question: String) {
        #expect(BuiltInTools.Cues.dateTime(question))
    }

    @Test("questions that want none of them", arguments: [
        "What is the capital of France?", "The game was cancelled due to rain, why?", "What is the date of the field trip?",
        "What time does the bus leave for the trip?", "Tell me a joke about notes in music.",
    ])
    func none(_ question: String) {
        #expect(!BuiltInTools.Cues.materials(question) && !BuiltInTools.Cues.assignments(question) && !BuiltInTools.Cues.dateTime(question))
    }

    @Test("the search for a question about the notes is its topic words")
    func searchQuery() {
        #expect(BuiltInTools.Cues.searchQuery("What do my notes say about the field trip?") == "field trip")
        #expect(BuiltInTools.Cues.searchQuery("Is photosynthesis in my biology notes?") == "photosynthesis biology")
        #expect(BuiltInTools.Cues.searchQuery("my notes?") == "my notes?")  // nothing to search by: the words as they are
    }
}
