import Foundation
import Testing
@testable import ParleyGoogle

/// Due dates in teachers' sentences, resolved against a message sent on Tuesday 17 November
/// 2026 at 09:15 in UTC+1.
@Suite struct DueDateFinderTests {
    let zone = TimeZone(secondsFromGMT: 3600)!
    var sent: Date { Date(timeIntervalSince1970: 1_794_903_300) }  // 2026-11-17T08:15:00Z

    func finder() -> DueDateFinder { DueDateFinder(reference: sent, timeZone: zone) }

    func day(_ sentence: String) -> String? { finder().mentions(in: sentence).first?.day }

    @Test func referenceIsTuesdayMorning() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        #expect(calendar.component(.weekday, from: sent) == 3)
        #expect(calendar.component(.hour, from: sent) == 9)
    }

    @Test(arguments: [
        ("The essay is due 2026-12-04.", "2026-12-04"),
        ("Please submit the lab report by December 4.", "2026-12-04"),
        ("Hand in your poster on 4th December 2026.", "2026-12-04"),
        ("Deadline: Dec. 4th", "2026-12-04"),
        ("The worksheet is due Friday.", "2026-11-20"),
        ("Turn it in by next Friday, please.", "2026-11-27"),
        ("Reading log due tomorrow.", "2026-11-18"),
        ("Finish the quiz corrections today, due tonight.", "2026-11-17"),
        ("The project is due in two weeks.", "2026-12-01"),
        ("Your summary is due in 3 days.", "2026-11-20"),
        ("The test corrections are due Monday.", "2026-11-23"),
        ("Submit the essay by January 10.", "2027-01-10"),
        ("The overdue book was due November 10, return it.", "2026-11-10"),
    ])
    func resolvesTheDay(sentence: String, expected: String) {
        #expect(day(sentence) == expected, "\(sentence)")
    }

    @Test func aSentenceWithoutACueOrADateIsNoAssignment() {
        #expect(finder().mentions(in: "We had a lovely trip to the museum on Friday.").isEmpty)
        #expect(finder().mentions(in: "The essay is due soon, I will tell you when.").isEmpty)
        #expect(finder().mentions(in: "Your essay is due 12/4.").isEmpty)
    }

    @Test func aTimeInTheSentenceMakesItExactInTheSendersZone() throws {
        let mention = try #require(finder().mentions(in: "Upload the slides by Friday at 5 p.m. sharp.").first)
        #expect(mention.day == "2026-11-20")
        // 17:00 at UTC+1 is 16:00 UTC.
        #expect(mention.time == ISO8601DateFormatter().date(from: "2026-11-20T16:00:00Z"))
        let twentyFour = try #require(finder().mentions(in: "Deadline 2026-12-04 23:59.").first)
        #expect(twentyFour.time == ISO8601DateFormatter().date(from: "2026-12-04T22:59:00Z"))
        #expect(finder().mentions(in: "The essay is due Friday.").first?.time == nil)
    }

    @Test func everySentenceIsReadOnItsOwn() {
        let text = """
            Hello class,
            The water cycle essay is due Friday. Also, please hand in the map exercise by December 1.
            Have a nice week!
            """
        let mentions = finder().mentions(in: text)
        #expect(mentions.map(\.day) == ["2026-11-20", "2026-12-01"])
        #expect(mentions.first?.sentence == "The water cycle essay is due Friday.")
    }
}
