import Foundation
import ParleyCore

/// The microphone's level for a face to draw (an orb, a bar): each buffer's RMS in dBFS, mapped
/// onto 0…1 between a floor and full scale, rising at once and falling slowly so that the
/// display does not flicker.
public struct LevelMeter: Sendable, Equatable {
    /// The level shown as 0, in dBFS.
    public var floor: Float
    /// How much of the gap a falling level closes per buffer (0…1).
    public var release: Float
    /// The level shown now, 0…1.
    public private(set) var level: Float = 0

    /// A meter from `floor` dBFS (silence) to 0 dBFS.
    public init(floor: Float = -60, release: Float = 0.3) {
        self.floor = floor
        self.release = release
    }

    /// The RMS level of `samples` in dBFS (−120 for digital silence).
    public static func decibels(_ samples: [Float]) -> Float {
        guard !samples.isEmpty else { return -120 }
        let power = samples.reduce(Float(0)) { $0 + $1 * $1 } / Float(samples.count)
        return power > 0 ? max(-120, 10 * log10(power)) : -120
    }

    /// Takes the next buffer and returns the level to show.
    public mutating func take(_ buffer: AudioBuffer) -> Float {
        let target = min(1, max(0, (Self.decibels(buffer.samples) - floor) / -floor))
        level = target >= level ? target : level + (target - level) * release
        return level
    }
}
