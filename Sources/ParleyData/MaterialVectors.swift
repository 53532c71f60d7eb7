/// The embedding vectors of one material's passages, from one embedding model: what
/// meaning-based material search compares a question with.
public struct MaterialVectors: Sendable, Equatable {
    /// One passage of the material and its vector.
    public struct Passage: Sendable, Equatable {
        /// The passage (see ``MaterialSearch/passages(of:)``).
        public var text: String
        /// Its embedding, L2-normalized.
        public var vector: [Float]

        /// Creates a passage.
        public init(text: String, vector: [Float]) {
            self.text = text
            self.vector = vector
        }
    }

    /// The material's id.
    public var material: Int64
    /// The material's title.
    public var title: String
    /// Its passages, in order.
    public var passages: [Passage]

    /// Creates the vectors of a material.
    public init(material: Int64, title: String, passages: [Passage]) {
        self.material = material
        self.title = title
        self.passages = passages
    }
}

extension MaterialVectors.Passage {
    /// The vector as stored: little-endian 32-bit floats.
    public var vectorBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        return bytes
    }

    /// A vector read back from ``vectorBytes``; `nil` when the length is not a multiple of four.
    public static func vector(from bytes: some Collection<UInt8>) -> [Float]? {
        guard bytes.count % 4 == 0 else { return nil }
        var vector: [Float] = []
        vector.reserveCapacity(bytes.count / 4)
        var iterator = bytes.makeIterator()
        while let a = iterator.next(), let b = iterator.next(), let c = iterator.next(), let d = iterator.next() {
            let bits = UInt32(a) | UInt32(b) << 8 | UInt32(c) << 16 | UInt32(d) << 24
            vector.append(Float(bitPattern: bits))
        }
        return vector
    }
}
