import ParleyCore
import ParleyRuntime
import Testing

/// Which questions plainly want a built-in tool (and so begin with its call).
@Suite("Built-in tool cues")
struct BuiltInToolCueTests {
    @Test(
        "questions about the user's notes and materials",
        arguments: [
            "What do my notes say about the field trip?", "what does our class handout say about fractions",
            "Can you check my study guide for the test?", "Is photosynthesis in my biology notes?",
        ])
    func materials(_ question: String) {
        #expect(BuiltInTools.Cues.materials(question))
    }

    @Test(
        "questions about assignments",
        arguments: [
            "What is due this week?", "Do I have any homework?", "what are my assignments", "Any deadlines coming up?",
        ])
    func assignments(_ question: String) {
        #expect(BuiltInTools.Cues.assignments(question))
    }

    @Test(
        "questions about the date and time",
        arguments: [
            "What's the date today?", "what day is it", "What time is it?", "What is today's date?", "what is the time right now",
            "What time is it in Tokyo right now?", "What's the time in New York?", "what is the local time in São Paulo",
            "What day is it in Auckland?", "Tell me the local time in Sydney.",
        ])
    func dateTime(_ question: String) {
        #expect(BuiltInTools.Cues.dateTime(question))
    }

    @Test(
        "questions that want none of them",
        arguments: [
            "What is the capital of France?", "The game was cancelled due to rain, why?", "What is the date of the field trip?",
            "What time does the bus leave for the trip?", "Tell me a joke about notes in music.",
        ])
    func none(_ question: String) {
        #expect(!BuiltInTools.Cues.materials(question) && !BuiltInTools.Cues.assignments(question) && !BuiltInTools.Cues.dateTime(question))
    }

    @Test(
        "the place a question about the time names",
        arguments: [
            ("What time is it in Tokyo right now?", "Tokyo"), ("What's the time in New York?", "New York"),
            ("what is the local time in São Paulo", "São Paulo"), ("What day is it in Auckland today?", "Auckland"),
            ("What time is it now in Europe/Paris?", "Europe/Paris"), ("What time is it in UTC+5:30?", "UTC+5:30"),
            ("What time is it?", nil), ("What is the time right now?", nil), ("What's the date today?", nil),
        ] as [(String, String?)])
    func place(_ question: String, _ place: String?) {
        #expect(BuiltInTools.Cues.place(in: question) == place)
    }

    @Test("the cued clock call passes the place a question names, and none when it names none")
    func cuedClockCall() throws {
        let box = try BuiltInTools.toolbox(store: nil, owner: .local)
        let tokyo = box.cuedCall(for: ChatRequest(messages: [.user("What time is it in Tokyo right now?")], tools: box.definitions))
        #expect(tokyo?.name == "current_date_time")
        #expect(tokyo?.arguments == #"{"place":"Tokyo"}"#)
        let own = box.cuedCall(for: ChatRequest(messages: [.user("What time is it?")], tools: box.definitions))
        #expect(own?.name == "current_date_time")
        #expect(own?.arguments == "{}")
    }

    @Test("the search for a question about the notes is its topic words")
    func searchQuery() {
        #expect(BuiltInTools.Cues.searchQuery("What do my notes say about the field trip?") == "field trip")
        #expect(BuiltInTools.Cues.searchQuery("Is photosynthesis in my biology notes?") == "photosynthesis biology")
        #expect(BuiltInTools.Cues.searchQuery("my notes?") == "my notes?")  // nothing to search by: the words as they are
    }
}

/// The cues in Italian, Spanish, French and German, and the date said in the language.
@Suite("Built-in tool cues in other languages")
struct LocalizedToolCueTests {
    @Test(
        "questions about the notes",
        arguments: [
            "Cosa dicono i miei appunti sulla gita?", "¿Qué dicen mis apuntes sobre la excursión?",
            "Que disent mes notes sur la sortie ?", "Was steht in meinen Notizen über den Ausflug?",
        ])
    func materials(_ question: String) {
        #expect(BuiltInTools.Cues.materials(question))
    }

    @Test(
        "questions about homework",
        arguments: [
            "Quali compiti ho per domani?", "¿Tengo deberes esta semana?", "Quels sont mes devoirs ?", "Habe ich Hausaufgaben auf?",
        ])
    func assignments(_ question: String) {
        #expect(BuiltInTools.Cues.assignments(question))
    }

    @Test(
        "questions about the date and time",
        arguments: [
            "Che ore sono?", "Che giorno è oggi?", "¿Qué hora es?", "¿Qué día es hoy?", "Quelle heure est-il ?", "Quel jour sommes-nous ?",
            "Wie spät ist es?", "Welcher Tag ist heute?",
        ])
    func dateTime(_ question: String) {
        #expect(BuiltInTools.Cues.dateTime(question))
    }

    @Test(
        "questions that want no look-up",
        arguments: [
            "Qual è la capitale della Francia?", "¿Cuál es la capital de Francia?", "Quelle est la capitale de la France ?",
            "Was ist die Hauptstadt von Frankreich?", "Le note musicali sono sette.",
        ])
    func none(_ question: String) {
        #expect(!BuiltInTools.Cues.materials(question) && !BuiltInTools.Cues.assignments(question) && !BuiltInTools.Cues.dateTime(question))
    }
}
