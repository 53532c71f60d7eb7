import ParleyCore
import ParleyLocal
import ParleyRuntime
import ParleyTesting
import Testing

/// Which echo canceller a face gets (DeviceServices), on the real libraries scripts/setup installs.
@Suite("echo cancellers: the standard engine and the fallback")
struct EchoEngineTests {
    @Test("a canceller that starts cold is WebRTC's handing over to SpeexDSP's, one that hears the room first SpeexDSP's, and one asked for is that one")
    func standardByStart() async throws {
        #expect(EchoEngine.standard(startsCold: true) == .webrtcThenSpeex)
        #expect(EchoEngine.standard(startsCold: false) == .speex)
        let cold = try DeviceServices.echoCanceller(sampleRate: 24_000, startsCold: true)
        let handover = try #require(cold as? HandoverEchoCanceller)
        #expect(handover.first is WebRTCEchoCanceller && handover.then is SpeexEchoCanceller && handover.sampleRate == 24_000)
        // SpeexDSP's takes over after 1.5 s of the speaker (the room rig: as clean as after 3 s).
        #expect(handover.handover == 1.5)
        #expect(EchoEngine(rawValue: "webrtc-then-speex") == .webrtcThenSpeex)
        #expect(try DeviceServices.echoCanceller(sampleRate: 16_000, startsCold: false) is SpeexEchoCanceller)
        #expect(try DeviceServices.echoCanceller(sampleRate: 16_000, engine: .webrtc, startsCold: false) is WebRTCEchoCanceller)
    }

    @Test("when the standard engine cannot serve, the other takes over after a warning that says why; one asked for fails instead")
    func fallsBack() throws {
        let logs = CapturedLogs()
        // WebRTC's processes 8, 16, 24 (at 48), 32 and 48 kHz, not 22,050 Hz.
        let canceller = try DeviceServices.echoCanceller(sampleRate: 22_050, startsCold: true, logger: logs.logger())
        #expect(canceller is SpeexEchoCanceller)
        let warnings = logs.messages(at: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("falls back to speex") == true && warnings.first?.contains("22050 Hz") == true, "\(warnings)")
        #expect(throws: EchoCancellerError.self) { try DeviceServices.echoCanceller(sampleRate: 22_050, engine: .webrtc, startsCold: true) }
    }

    @Test("WebRTC's canceller refuses what it cannot do with a sentence that says so")
    func refusals() {
        #expect(throws: EchoCancellerError.self) { try WebRTCEchoCanceller(sampleRate: 44_100) }
        #expect(throws: EchoCancellerError.self) { try WebRTCEchoCanceller(sampleRate: 16_000, noiseSuppression: 5) }
        #expect(throws: EchoCancellerError.self) { try WebRTCEchoCanceller(sampleRate: 16_000, delay: .seconds(2)) }
    }
}
