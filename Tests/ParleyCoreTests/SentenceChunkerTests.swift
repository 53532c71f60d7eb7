import Testing
@testable import ParleyCore

@Suite("Sentence chunking of streamed text")
struct SentenceChunkerTests {
    /// Feeds `pieces` one by one and returns every sentence, the remainder last.
    func chunk(_ pieces: [String]) -> [String] {
        var chunker = SentenceChunker()
        var out = pieces.flatMap { chunker.append($0) }
        if let rest = chunker.finish() { out.append(rest) }
        return out
    }

    @Test("sentences come out as soon as they are complete")
    func streaming() {
        var chunker = SentenceChunker()
        #expect(chunker.append("The capital").isEmpty)
        #expect(chunker.append(" is Paris.").isEmpty)  // the period might still be "Paris.com"
        #expect(chunker.append(" It is") == ["The capital is Paris."])
        #expect(chunker.finish() == "It is")
    }

    @Test(
        "cases",
        arguments: [
            (["Hello there! How are you? Fine."], ["Hello there!", "How are you?", "Fine."]),
            (["Dr. Smith lives on Main St. near here. Yes."], ["Dr. Smith lives on Main St. near here.", "Yes."]),
            (["Pi is 3.14 roughly. Next"], ["Pi is 3.14 roughly.", "Next"]),
            (["It costs $2", ".50 today. Ok"], ["It costs $2.50 today.", "Ok"]),
            (["Use e.g. salt. Or i.e. pepper."], ["Use e.g. salt.", "Or i.e. pepper."]),
            (["J. R. R. Tolkien wrote it. True."], ["J. R. R. Tolkien wrote it.", "True."]),
            (["He said \"Stop.\" Then left."], ["He said \"Stop.\"", "Then left."]),
            (["No sentence end at all"], ["No sentence end at all"]),
            (["First line\nSecond line"], ["First line", "Second line"]),
            (["Wait… what?! Ok"], ["Wait…", "what?!", "Ok"]),
            (["  ", "\n"], []),
        ])
    func cases(pieces: [String], expected: [String]) {
        #expect(chunk(pieces) == expected)
    }

    @Test("splitting the text into single characters changes nothing")
    func characterByCharacter() {
        let text = "Mr. Brown paid 4.5 euros. Then he left! Did he? Yes"
        #expect(chunk(text.map(String.init)) == chunk([text]))
    }
}

@Suite("The first clause of a long first sentence")
struct FirstClauseTests {
    @Test("the first chunk ends at a clause with enough words before it; later ones only at sentence ends")
    func firstClause() {
        var chunker = SentenceChunker(firstClauseWords: 5)
        var chunks: [String] = []
        for piece in ["The largest planet in our", " solar system, by far,", " is Jupiter. It has", " moons, rings, and storms.", " Next"] {
            chunks += chunker.append(piece)
        }
        chunks += chunker.finish().map { [$0] } ?? []
        #expect(chunks == ["The largest planet in our solar system,", "by far, is Jupiter.", "It has moons, rings, and storms.", "Next"])
    }

    @Test("the first chunk ends before a word that opens a clause, once that word is whole and has enough words before it")
    func clauseOpener() {
        var chunker = SentenceChunker(firstClauseWords: 5)
        #expect(chunker.append("Leaves turn red in autumn because") == [])
        #expect(chunker.append(" the") == ["Leaves turn red in autumn"])
        #expect(chunker.append(" green fades. It is cold when winter comes. ") == ["because the green fades.", "It is cold when winter comes."])
        // Too few words before it, a word that only begins like one, and "and" inside a phrase.
        var short = SentenceChunker(firstClauseWords: 5)
        #expect(short.append("I know because I read it. ") == ["I know because I read it."])
        var longer = SentenceChunker(firstClauseWords: 5)
        #expect(
            longer.append("The sky looks bright blue and wholly clear whichever way you look. ") == [
                "The sky looks bright blue and wholly clear whichever way you look."
            ])
    }

    @Test("the first chunk ends before the verb of a statement once its subject has enough words, as soon as the verb is written")
    func predicate() {
        var chunker = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3)
        #expect(chunker.append("The capital of France") == [])
        #expect(chunker.append(" i") == [])  // "i" may begin any word
        #expect(chunker.append("s") == ["The capital of France"])
        #expect(chunker.append(" Paris. It is big. ") == ["is Paris.", "It is big."])
        // Token by token, as a model writes: the cut comes with the verb's token.
        var tokens = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3)
        #expect(tokens.append("The") + tokens.append(" largest") + tokens.append(" planet") == [])
        #expect(tokens.append(" is") == ["The largest planet"])
        // A subject too short, a verb inside a word, and a chunker that does not cut there.
        var short = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3)
        #expect(short.append("The moon is far away. ") == ["The moon is far away."])
        var inside = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3)
        #expect(inside.append("Some old thesis isn't new. ") == ["Some old thesis isn't new."])
        var plain = SentenceChunker(firstClauseWords: 5)
        #expect(plain.append("The capital of France is Paris. ") == ["The capital of France is Paris."])
    }

    @Test("the first chunk ends before a number once it has enough words, as soon as the first digit is written")
    func number() {
        var chunker = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3, firstNumberWords: 3)
        #expect(chunker.append("The") + chunker.append(" moon") + chunker.append(" is") + chunker.append(" approximately") == [])
        #expect(chunker.append(" ") == [])
        #expect(chunker.append("3") == ["The moon is approximately"])
        #expect(chunker.append("84,400 kilometers away. It takes 3 days to get there. ") == ["384,400 kilometers away.", "It takes 3 days to get there."])
        // Too few words before it, a number inside a word, and a chunker that does not cut there.
        var short = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3, firstNumberWords: 3)
        #expect(short.append("It has 95 moons. ") == ["It has 95 moons."])
        var inside = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3, firstNumberWords: 3)
        #expect(inside.append("Call the R2 droid now. ") == ["Call the R2 droid now."])
        var plain = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3)
        #expect(plain.append("The moon is approximately 384,400 kilometers away. ") == ["The moon is approximately 384,400 kilometers away."])
    }

    @Test("the first chunk ends before a whole word that opens a phrase, once it has enough words and its last word may end one")
    func phrase() {
        func first(_ text: String) -> String? {
            var chunker = ReplySpeaker.replyChunker()
            var chunks = chunker.append(text + " ")
            if let rest = chunker.finish() { chunks.append(rest) }
            return chunks.first
        }
        #expect(first("The capital of France is Paris.") == "The capital")
        #expect(first("Your meeting with the science teacher starts in ten minutes.") == "Your meeting")
        #expect(first("The Pacific is the largest ocean on Earth.") == "The Pacific")
        #expect(first("The moon goes around the Earth about once a month.") == "The moon goes")
        #expect(first("Light travels faster than sound.") == "Light travels faster")
        // Not after an article, an auxiliary or a preposition, not with one word, not inside a word.
        #expect(first("It will be sunny this afternoon, with a light breeze.") == "It will be sunny this afternoon,")
        #expect(first("Mercury is the planet closest to the sun.") == "Mercury is the planet closest")
        #expect(first("Shakespeare wrote Romeo and Juliet.") == "Shakespeare wrote Romeo and Juliet.")
        #expect(first("Please speak often.") == "Please speak often.")
        // The word must be whole: "of" may yet be "often".
        var chunker = ReplySpeaker.replyChunker()
        #expect(chunker.append("The capital of") == [])
        #expect(chunker.append(" France") == ["The capital"])
        // A chunker not asked to cut there.
        var plain = SentenceChunker(firstClauseWords: 5, firstPredicateWords: 3)
        #expect(plain.append("Your meeting with the science teacher starts now. ") == ["Your meeting with the science teacher starts now."])
    }

    @Test("the first chunk may end at a comma with fewer words than before a clause's opening word")
    func mark() {
        var chunker = SentenceChunker(firstClauseWords: 5, firstMarkWords: 2)
        #expect(chunker.append("I apologize,") == [])
        #expect(chunker.append(" but I'm not sure, really. ") == ["I apologize,", "but I'm not sure, really."])
        // One word before the comma, and an opening word after two words: no cut.
        var one = SentenceChunker(firstClauseWords: 5, firstMarkWords: 2)
        #expect(one.append("Yes, it has 1,000 moons. ") == ["Yes, it has 1,000 moons."])
        var opener = SentenceChunker(firstClauseWords: 5, firstMarkWords: 2)
        #expect(opener.append("It is so big. ") == ["It is so big."])
    }

    @Test("a short clause, a number with a comma, and a clause at the end of what is written so far do not cut")
    func noCut() {
        var chunker = SentenceChunker(firstClauseWords: 5)
        #expect(chunker.append("Yes, it has 1,000 moons and more,") == [])
        #expect(chunker.append(" I think") == ["Yes, it has 1,000 moons and more,"])
        #expect(chunker.finish() == "I think")
        var aside = SentenceChunker(firstClauseWords: 5)
        #expect(
            aside.append("The moon is about 384,400 kilometers (238,855 miles) away. Yes (really).") == [
                "The moon is about 384,400 kilometers", "(238,855 miles) away.",
            ])
        #expect(aside.finish() == "Yes (really).")
        var plain = SentenceChunker()
        #expect(plain.append("The largest planet in our solar system, by far, is Jupiter. ") == ["The largest planet in our solar system, by far, is Jupiter."])
    }
}
