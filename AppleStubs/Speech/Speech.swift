// Stub of Speech for scripts/check-apple, written from Apple's documentation
// (https://developer.apple.com/documentation/speech/…); bodies never run.
// None of these classes lists Sendable on its page; the result handler is not @Sendable there.
@_exported import AVFoundation
@_exported import Foundation  // an Objective-C framework re-exports the Foundation its headers import

/// https://developer.apple.com/documentation/speech/sfspeechrecognizerauthorizationstatus
public enum SFSpeechRecognizerAuthorizationStatus: Int, Sendable {
    case notDetermined = 0, denied = 1, restricted = 2, authorized = 3
}

/// https://developer.apple.com/documentation/speech/sfspeechrecognizer
open class SFSpeechRecognizer: NSObject {
    /// …/init(locale:)
    public init?(locale: Locale) { super.init() }
    /// …/authorizationstatus()
    open class func authorizationStatus() -> SFSpeechRecognizerAuthorizationStatus { .notDetermined }
    /// …/requestauthorization(_:)
    open class func requestAuthorization(_ handler: @escaping (SFSpeechRecognizerAuthorizationStatus) -> Void) {}
    /// …/supportedlocales()
    open class func supportedLocales() -> Set<Locale> { [] }
    /// …/isavailable
    open var isAvailable: Bool { false }
    /// …/supportsondevicerecognition
    open var supportsOnDeviceRecognition: Bool = false
    /// …/locale
    open var locale: Locale { Locale(identifier: "") }
    /// …/recognitiontask(with:resulthandler:)
    open func recognitionTask(
        with request: SFSpeechRecognitionRequest,
        resultHandler: @escaping (SFSpeechRecognitionResult?, (any Error)?) -> Void
    ) -> SFSpeechRecognitionTask {
        SFSpeechRecognitionTask()
    }
}

/// https://developer.apple.com/documentation/speech/sfspeechrecognitionrequest
open class SFSpeechRecognitionRequest: NSObject {
    /// …/shouldreportpartialresults
    open var shouldReportPartialResults: Bool = true
    /// …/requiresondevicerecognition
    open var requiresOnDeviceRecognition: Bool = false
    /// …/addspunctuation (iOS 16, macOS 13)
    open var addsPunctuation: Bool = false
    /// …/contextualstrings
    open var contextualStrings: [String] = []
}

/// https://developer.apple.com/documentation/speech/sfspeechaudiobufferrecognitionrequest
open class SFSpeechAudioBufferRecognitionRequest: SFSpeechRecognitionRequest {
    public override init() { super.init() }
    /// …/append(_:)
    open func append(_ audioPCMBuffer: AVAudioPCMBuffer) {}
    /// …/endaudio()
    open func endAudio() {}
    /// …/nativeaudioformat
    open var nativeAudioFormat: AVAudioFormat { fatalError("stub") }
}

/// https://developer.apple.com/documentation/speech/sfspeechrecognitiontask (not Sendable)
open class SFSpeechRecognitionTask: NSObject {
    /// …/cancel()
    open func cancel() {}
    /// …/finish()
    open func finish() {}
    /// …/iscancelled
    open var isCancelled: Bool { false }
}

/// https://developer.apple.com/documentation/speech/sfspeechrecognitionresult
open class SFSpeechRecognitionResult: NSObject {
    /// …/besttranscription
    open var bestTranscription: SFTranscription { SFTranscription() }
    /// …/isfinal
    open var isFinal: Bool { false }
}

/// https://developer.apple.com/documentation/speech/sftranscription
open class SFTranscription: NSObject {
    /// …/formattedstring
    open var formattedString: String { "" }
}
