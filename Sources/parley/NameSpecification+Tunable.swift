import ArgumentParser
import ParleyCore

extension NameSpecification {
    /// The long flag the table of tunables gives `tunable` (``Tunable/flag``).
    static func tunable(_ tunable: Tunable) -> NameSpecification {
        .customLong(tunable.flag ?? tunable.id)
    }

    /// The flag of a setting whose value is a name (`--voice`), as the table spells it.
    static func tunable(_ setting: Tunable.Name) -> NameSpecification {
        .customLong(setting.flag ?? setting.id)
    }
}
