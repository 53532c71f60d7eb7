import ArgumentParser
import ParleyCore

extension NameSpecification {
    /// The long flag the table of tunables gives `tunable` (``Tunable/flag``).
    static func tunable(_ tunable: Tunable) -> NameSpecification {
        .customLong(tunable.flag ?? tunable.id)
    }
}
