import Foundation

/// A provider's key from the environment, or `nil` when unset or empty.
func environmentValue(_ name: String, in environment: [String: String]) -> String? {
    guard let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
    return value
}

/// `base` without a trailing slash, followed by `path`.
func join(_ base: String, _ path: String) -> String {
    var base = base
    while base.hasSuffix("/") { base.removeLast() }
    return base + path
}
