/// A small seeded random number generator (SplitMix64), so that a layout depends only on its
/// map and its seed: the same inputs give bit-identical coordinates on every run.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; every seed, 0 included, gives a different sequence.
    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in [0, 1) from the top 53 bits, computed the same way on every platform.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A value in [-1, 1).
    mutating func signedUnit() -> Double {
        unit() * 2 - 1
    }
}
