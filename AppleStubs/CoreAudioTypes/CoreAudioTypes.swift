// Stub of CoreAudioTypes for scripts/check-apple, written from Apple's documentation; bodies never run.
// C structs are imported by Swift as structs with a zero initializer and a memberwise one, and
// (holding pointers) are not Sendable.

/// https://developer.apple.com/documentation/coreaudiotypes/audiobuffer
public struct AudioBuffer {
    public var mNumberChannels: UInt32
    public var mDataByteSize: UInt32
    public var mData: UnsafeMutableRawPointer?
    public init() { mNumberChannels = 0; mDataByteSize = 0; mData = nil }
    public init(mNumberChannels: UInt32, mDataByteSize: UInt32, mData: UnsafeMutableRawPointer?) {
        self.mNumberChannels = mNumberChannels; self.mDataByteSize = mDataByteSize; self.mData = mData
    }
}

/// https://developer.apple.com/documentation/coreaudiotypes/audiobufferlist
public struct AudioBufferList {
    public var mNumberBuffers: UInt32
    public var mBuffers: (AudioBuffer)
    public init() { mNumberBuffers = 0; mBuffers = AudioBuffer() }
    public init(mNumberBuffers: UInt32, mBuffers: (AudioBuffer)) { self.mNumberBuffers = mNumberBuffers; self.mBuffers = mBuffers }
}

/// https://developer.apple.com/documentation/coreaudiotypes/audiostreambasicdescription
public struct AudioStreamBasicDescription {
    public var mSampleRate: Double
    public var mFormatID: UInt32
    public var mFormatFlags: UInt32
    public var mBytesPerPacket: UInt32
    public var mFramesPerPacket: UInt32
    public var mBytesPerFrame: UInt32
    public var mChannelsPerFrame: UInt32
    public var mBitsPerChannel: UInt32
    public var mReserved: UInt32
    public init() {
        mSampleRate = 0; mFormatID = 0; mFormatFlags = 0; mBytesPerPacket = 0; mFramesPerPacket = 0
        mBytesPerFrame = 0; mChannelsPerFrame = 0; mBitsPerChannel = 0; mReserved = 0
    }
}
