/// A dense tensor of 32-bit floats, row-major: what goes into and comes out of a model.
public struct OnnxTensor: Sendable, Equatable {
    /// The size of each dimension.
    public var shape: [Int]
    /// The values, row-major; `shape`'s product of them.
    public var values: [Float]

    /// Creates a tensor; ``OnnxSession/run(_:outputs:)`` checks that `values` fills `shape`.
    public init(shape: [Int], values: [Float]) {
        self.shape = shape
        self.values = values
    }

    /// How many values `shape` holds.
    public var elementCount: Int { shape.reduce(1, *) }
}
