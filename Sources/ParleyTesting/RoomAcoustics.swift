import Foundation
import ParleyCore

/// How a simulated room carries the assistant's voice from its speaker back into its
/// microphone: a delay, an impulse response made by sox's `reverb`, a level, and steady noise.
public struct RoomAcoustics: Sendable {
    /// The microphone's sample rate.
    public var sampleRate: Int
    /// The impulse response from the speaker to the microphone (the delay included).
    public var impulse: [Float]
    /// Standard deviation of the room's white noise, in full scale.
    public var noiseLevel: Float
    /// Seed of the noise, so every run hears the same room.
    public var seed: UInt64

    /// A room with this impulse response.
    public init(sampleRate: Int, impulse: [Float], noiseLevel: Float, seed: UInt64 = 46) {
        self.sampleRate = sampleRate
        self.impulse = impulse
        self.noiseLevel = noiseLevel
        self.seed = seed
    }

    /// A room made with sox: a unit impulse `delay` seconds late, passed through
    /// `reverb reverberance HF-damping room-scale` (dry and wet), scaled so the echo's loudest
    /// tap is `gain`, cut to `length` seconds. Throws when sox is missing (scripts/setup
    /// installs it).
    public static func sox(
        sampleRate: Int = 16_000, delay: Double = 0.05, reverberance: Int = 50, damping: Int = 50, roomScale: Int = 70,
        gain: Float = 0.6, length: Double = 0.25, noiseLevel: Float = 0.003, seed: UInt64 = 46, executable: String = "sox"
    ) throws -> RoomAcoustics {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-room-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dry = directory.appendingPathComponent("impulse.wav"), wet = directory.appendingPathComponent("room.wav")
        var unit = [Float](repeating: 0, count: Int(Double(sampleRate) * (delay + length + 0.5)))
        unit[Int(Double(sampleRate) * delay)] = 0.5
        try WAV.write(AudioBuffer(samples: unit, sampleRate: sampleRate), to: dry)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable, dry.path, wet.path, "reverb", String(reverberance), String(damping), String(roomScale)]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RoomError("sox could not make the room (exit \(process.terminationStatus)); install sox (scripts/setup does)")
        }
        let response = try WAV.read(from: wet).samples
        let taps = Array(response.prefix(Int(Double(sampleRate) * (delay + length))))
        let peak = taps.map { abs($0) }.max() ?? 0
        guard peak > 0 else { throw RoomError("sox's reverb returned silence") }
        return RoomAcoustics(sampleRate: sampleRate, impulse: taps.map { $0 / peak * gain }, noiseLevel: noiseLevel, seed: seed)
    }
}

/// A room the rig could not make.
public struct RoomError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The echo path of a ``RoomAcoustics`` as a running convolution, with its noise: feed what
/// the speaker played, get what the microphone hears of it.
public struct RoomEcho: Sendable {
    private let impulse: [Float]
    private let noiseLevel: Float
    private var history: [Float]
    private var noise: SeededGenerator
    private var quietSamples = Int.max

    /// The echo path of `acoustics`.
    public init(_ acoustics: RoomAcoustics) {
        impulse = acoustics.impulse
        noiseLevel = acoustics.noiseLevel
        history = [Float](repeating: 0, count: max(0, acoustics.impulse.count - 1))
        noise = SeededGenerator(seed: acoustics.seed)
    }

    /// The microphone's signal while the speaker played `played`: its echo plus the room's noise.
    public mutating func hear(_ played: [Float]) -> [Float] {
        var heard = [Float](repeating: 0, count: played.count)
        let silent = played.allSatisfy { $0 == 0 }
        quietSamples = silent ? quietSamples &+ played.count : 0
        let taps = impulse.count
        let signal = history + played
        // Nothing played within the impulse's length: no echo to compute.
        if quietSamples < taps + played.count, taps > 0 {
            impulse.withUnsafeBufferPointer { h in
                signal.withUnsafeBufferPointer { x in
                    heard.withUnsafeMutableBufferPointer { y in
                        for n in 0..<played.count {
                            var sum: Float = 0
                            let end = n + taps - 1
                            for k in 0..<taps { sum += h[k] * x[end - k] }
                            y[n] = sum
                        }
                    }
                }
            }
        }
        history = Array(signal.suffix(max(0, taps - 1)))
        if noiseLevel > 0 {
            // Uniform noise with this standard deviation.
            for index in heard.indices { heard[index] += noiseLevel * 1.732 * Float.random(in: -1...1, using: &noise) }
        }
        return heard
    }
}

extension EchoCanceller {
    /// A whole recording through this canceller, `frame` samples at a time (100 ms at 16 kHz),
    /// `speaker` as its reference. Up to a part-frame shorter than `microphone`: a canceller keeps
    /// the last part-frame back (for a next call that never comes).
    public func cancelling(_ microphone: [Float], speaker: [Float], frame: Int = 1_600) async -> [Float] {
        var cleaned: [Float] = []
        let count = min(microphone.count, speaker.count)
        for offset in stride(from: 0, to: count, by: max(1, frame)) {
            let end = min(count, offset + max(1, frame))
            cleaned += await cancel(microphone: Array(microphone[offset..<end]), speaker: Array(speaker[offset..<end]))
        }
        return cleaned
    }
}
