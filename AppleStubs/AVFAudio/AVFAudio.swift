// Stub of AVFAudio for scripts/check-apple, written from Apple's documentation
// (https://developer.apple.com/documentation/avfaudio/…); bodies never run.
// Objective-C classes import as `open` NSObject subclasses; only those whose page lists
// Sendable conform to it. Objective-C enums import as non-frozen enums.
@_exported import CoreAudioTypes
@_exported import Foundation  // an Objective-C framework re-exports the Foundation its headers import

/// https://developer.apple.com/documentation/avfaudio/avaudioframecount
public typealias AVAudioFrameCount = UInt32
/// https://developer.apple.com/documentation/avfaudio/avaudiochannelcount
public typealias AVAudioChannelCount = UInt32
/// https://developer.apple.com/documentation/avfaudio/avaudionodebus
public typealias AVAudioNodeBus = Int
/// https://developer.apple.com/documentation/avfaudio/avaudionodetapblock (not @Sendable on the page)
public typealias AVAudioNodeTapBlock = (AVAudioPCMBuffer, AVAudioTime) -> Void
/// https://developer.apple.com/documentation/avfaudio/avaudionodecompletionhandler
public typealias AVAudioNodeCompletionHandler = () -> Void

/// https://developer.apple.com/documentation/avfaudio/avaudioformat (immutable; Sendable)
open class AVAudioFormat: NSObject, @unchecked Sendable {
    /// …/init(standardformatwithsamplerate:channels:)
    public init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) { super.init() }
    /// …/init(commonformat:samplerate:channels:interleaved:)
    public init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount, interleaved: Bool) { super.init() }
    /// …/samplerate
    open var sampleRate: Double { 0 }
    /// …/channelcount
    open var channelCount: AVAudioChannelCount { 0 }
    /// …/isinterleaved
    open var isInterleaved: Bool { false }
    /// …/commonformat
    open var commonFormat: AVAudioCommonFormat { .otherFormat }
}

/// https://developer.apple.com/documentation/avfaudio/avaudiocommonformat
public enum AVAudioCommonFormat: UInt, Sendable {
    case otherFormat = 0, pcmFormatFloat32 = 1, pcmFormatFloat64 = 2, pcmFormatInt16 = 3, pcmFormatInt32 = 4
}

/// https://developer.apple.com/documentation/avfaudio/avaudiobuffer
open class AVAudioBuffer: NSObject {
    /// …/format
    open var format: AVAudioFormat { fatalError("stub") }
}

/// https://developer.apple.com/documentation/avfaudio/avaudiopcmbuffer (not Sendable)
open class AVAudioPCMBuffer: AVAudioBuffer {
    /// …/init(pcmformat:framecapacity:)
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) { super.init() }
    /// …/framelength
    open var frameLength: AVAudioFrameCount = 0
    /// …/framecapacity
    open var frameCapacity: AVAudioFrameCount { 0 }
    /// …/floatchanneldata
    open var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? { nil }
    /// …/int16channeldata
    open var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? { nil }
    /// …/int32channeldata
    open var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? { nil }
}

/// https://developer.apple.com/documentation/avfaudio/avaudiotime
open class AVAudioTime: NSObject {}

/// https://developer.apple.com/documentation/avfaudio/avaudionode
open class AVAudioNode: NSObject {
    /// …/installtap(onbus:buffersize:format:block:)
    open func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?, block tapBlock: @escaping AVAudioNodeTapBlock) {}
    /// …/removetap(onbus:)
    open func removeTap(onBus bus: AVAudioNodeBus) {}
    /// …/outputformat(forbus:)
    open func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { fatalError("stub") }
    /// …/inputformat(forbus:)
    open func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { fatalError("stub") }
    /// …/reset()
    open func reset() {}
}

/// https://developer.apple.com/documentation/avfaudio/avaudioionode
open class AVAudioIONode: AVAudioNode {
    /// …/setvoiceprocessingenabled(_:) (iOS 13, macOS 10.15)
    open func setVoiceProcessingEnabled(_ enabled: Bool) throws {}
    /// …/isvoiceprocessingenabled
    open var isVoiceProcessingEnabled: Bool { false }
}

/// https://developer.apple.com/documentation/avfaudio/avaudioinputnode
open class AVAudioInputNode: AVAudioIONode {}
/// https://developer.apple.com/documentation/avfaudio/avaudiooutputnode
open class AVAudioOutputNode: AVAudioIONode {}
/// https://developer.apple.com/documentation/avfaudio/avaudiomixernode
open class AVAudioMixerNode: AVAudioNode {}

/// https://developer.apple.com/documentation/avfaudio/avaudioplayernode
open class AVAudioPlayerNode: AVAudioNode {
    public override init() { super.init() }
    /// …/schedulebuffer(_:completionhandler:)
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioNodeCompletionHandler? = nil) {}
    /// …/play()
    open func play() {}
    /// …/stop()
    open func stop() {}
    /// …/pause()
    open func pause() {}
    /// …/isplaying
    open var isPlaying: Bool { false }
}

/// https://developer.apple.com/documentation/avfaudio/avaudioengine (not Sendable)
open class AVAudioEngine: NSObject {
    public override init() { super.init() }
    /// …/inputnode
    open var inputNode: AVAudioInputNode { fatalError("stub") }
    /// …/outputnode
    open var outputNode: AVAudioOutputNode { fatalError("stub") }
    /// …/mainmixernode
    open var mainMixerNode: AVAudioMixerNode { fatalError("stub") }
    /// …/attach(_:)
    open func attach(_ node: AVAudioNode) {}
    /// …/detach(_:)
    open func detach(_ node: AVAudioNode) {}
    /// …/connect(_:to:format:)
    open func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {}
    /// …/disconnectnodeoutput(_:)
    open func disconnectNodeOutput(_ node: AVAudioNode) {}
    /// …/prepare()
    open func prepare() {}
    /// …/start()
    open func start() throws {}
    /// …/stop()
    open func stop() {}
    /// …/isrunning
    open var isRunning: Bool { false }
}

/// https://developer.apple.com/documentation/avfaudio/avspeechboundary
public enum AVSpeechBoundary: Int, Sendable {
    case immediate = 0, word = 1
}

/// https://developer.apple.com/documentation/avfaudio/avspeechsynthesisvoice
open class AVSpeechSynthesisVoice: NSObject {
    /// …/speechvoices()
    open class func speechVoices() -> [AVSpeechSynthesisVoice] { [] }
    /// …/init(identifier:)
    public init?(identifier: String) { super.init() }
    /// …/init(language:)
    public init?(language languageCode: String?) { super.init() }
    /// …/identifier
    open var identifier: String { "" }
    /// …/language
    open var language: String { "" }
}

/// https://developer.apple.com/documentation/avfaudio/avspeechutterance
open class AVSpeechUtterance: NSObject {
    /// …/init(string:)
    public init(string: String) { super.init() }
    /// …/voice
    open var voice: AVSpeechSynthesisVoice?
    /// …/rate
    open var rate: Float = 0
}

/// https://developer.apple.com/documentation/avfaudio/avspeechutterancedefaultspeechrate
public let AVSpeechUtteranceDefaultSpeechRate: Float = 0.5

/// https://developer.apple.com/documentation/avfaudio/avspeechsynthesizer (not Sendable)
open class AVSpeechSynthesizer: NSObject {
    /// …/buffercallback (not @Sendable on the page)
    public typealias BufferCallback = (AVAudioBuffer) -> Void
    public override init() { super.init() }
    /// …/write(_:tobuffercallback:)
    open func write(_ utterance: AVSpeechUtterance, toBufferCallback bufferCallback: @escaping AVSpeechSynthesizer.BufferCallback) {}
    /// …/stopspeaking(at:)
    @discardableResult
    open func stopSpeaking(at boundary: AVSpeechBoundary) -> Bool { false }
    /// …/isspeaking
    open var isSpeaking: Bool { false }
}

#if !os(macOS)
/// https://developer.apple.com/documentation/avfaudio/avaudiosession (iOS, tvOS, watchOS, visionOS; not macOS)
@available(macOS, unavailable)
open class AVAudioSession: NSObject {
    /// …/sharedinstance()
    open class func sharedInstance() -> AVAudioSession { fatalError("stub") }
    /// …/category-swift.struct
    public struct Category: Hashable, Sendable, RawRepresentable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// …/category-swift.struct/playandrecord
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
    }
    /// …/mode-swift.struct
    public struct Mode: Hashable, Sendable, RawRepresentable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// …/mode-swift.struct/voicechat
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        /// …/mode-swift.struct/default
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
    }
    /// …/categoryoptions-swift.struct
    public struct CategoryOptions: OptionSet, Sendable {
        public var rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// …/categoryoptions-swift.struct/defaulttospeaker
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        /// …/categoryoptions-swift.struct/allowbluetoothhfp (allowBluetooth before iOS 26)
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
    }
    /// …/setcategory(_:mode:options:)
    open func setCategory(_ category: AVAudioSession.Category, mode: AVAudioSession.Mode, options: AVAudioSession.CategoryOptions = []) throws {}
    /// …/setactive(_:options:)
    open func setActive(_ active: Bool, options: AVAudioSession.SetActiveOptions = []) throws {}
    /// …/setactiveoptions
    public struct SetActiveOptions: OptionSet, Sendable {
        public var rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// …/setactiveoptions/notifyothersondeactivation
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }
    /// …/samplerate
    open var sampleRate: Double { 0 }
    /// …/interruptionnotification
    public static let interruptionNotification: NSNotification.Name = NSNotification.Name("AVAudioSessionInterruptionNotification")
    /// …/routechangenotification
    public static let routeChangeNotification: NSNotification.Name = NSNotification.Name("AVAudioSessionRouteChangeNotification")
    /// …/mediaserviceswereresetnotification
    public static let mediaServicesWereResetNotification: NSNotification.Name = NSNotification.Name("AVAudioSessionMediaServicesWereResetNotification")
    /// …/interruptiontype
    public enum InterruptionType: UInt, Sendable {
        case began = 1, ended = 0
    }
    /// …/interruptionoptions
    public struct InterruptionOptions: OptionSet, Sendable {
        public var rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// …/interruptionoptions/shouldresume
        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }
    /// …/routechangereason
    public enum RouteChangeReason: UInt, Sendable {
        case unknown = 0, newDeviceAvailable = 1, oldDeviceUnavailable = 2, categoryChange = 3, override = 4, wakeFromSleep = 6,
            noSuitableRouteForCategory = 7, routeConfigurationChange = 8
    }
}

/// https://developer.apple.com/documentation/avfaudio/avaudiosessioninterruptiontypekey
@available(macOS, unavailable)
public let AVAudioSessionInterruptionTypeKey: String = "AVAudioSessionInterruptionTypeKey"
/// https://developer.apple.com/documentation/avfaudio/avaudiosessioninterruptionoptionkey
@available(macOS, unavailable)
public let AVAudioSessionInterruptionOptionKey: String = "AVAudioSessionInterruptionOptionKey"
/// https://developer.apple.com/documentation/avfaudio/avaudiosessionroutechangereasonkey
@available(macOS, unavailable)
public let AVAudioSessionRouteChangeReasonKey: String = "AVAudioSessionRouteChangeReasonKey"
#endif

extension NSNotification.Name {
    /// https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/avaudioengineconfigurationchange
    public static let AVAudioEngineConfigurationChange = NSNotification.Name("AVAudioEngineConfigurationChangeNotification")
}
