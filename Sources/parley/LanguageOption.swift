import ArgumentParser
import Foundation
import ParleyCore

/// `--language`: the language spoken and answered in (`auto` or a code), by default
/// `PARLEY_LANGUAGE`, else English.
struct LanguageOption: ParsableArguments {
    @Option(
        help:
            "The language spoken and answered in: auto (detected each time) or a code such as en, it, es, fr, de (default: PARLEY_LANGUAGE, else en). Other than en, the multilingual Whisper model hears it."
    )
    var language: String?

    func validate() throws {
        do {
            _ = try setting
        } catch {
            throw ValidationError("--language: \(error)")
        }
    }

    /// The setting given, else `PARLEY_LANGUAGE`'s, else `nil` (English, as without languages).
    var setting: LanguageSetting? {
        get throws(LanguageSetting.Invalid) {
            guard let text = language ?? ProcessInfo.processInfo.environment["PARLEY_LANGUAGE"], !text.isEmpty else { return nil }
            return try LanguageSetting(parsing: text)
        }
    }
}
