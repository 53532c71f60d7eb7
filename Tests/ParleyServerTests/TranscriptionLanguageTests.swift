import Foundation
import ParleyCore
import Testing

extension OnDeviceServerTests {
    /// `/v1/audio/transcriptions`' `language` on the on-device engines, with synthetic Italian
    /// speech (espeak-ng's Italian voice).
    @Suite("the transcription API's language")
    struct TranscriptionLanguage {
        static func italian() throws -> Data {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["espeak-ng", "-v", "it", "--stdout",
                                 "Buongiorno, vorrei sapere che tempo farà domani a Roma, perché devo andare al mare con i miei amici."]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            // espeak-ng writes a streamed WAV (no sizes in its header): written whole again.
            return WAV.encode(try WAV.decode(data, streamed: true))
        }

        func transcribe(language: String?) async throws -> (status: Int, json: [String: Any]?, text: String) {
            let server = try await TestServer.onDevice.value
            var form = FormBody()
            form.add("model", "whisper-1")
            form.add("response_format", "verbose_json")
            if let language { form.add("language", language) }
            form.add(file: "file", filename: "domanda.wav", try Self.italian())
            let reply = try await server.send(.POST, "/v1/audio/transcriptions", headers: [("content-type", form.contentType)], body: form.finished)
            return (reply.status, reply.json, reply.text)
        }

        @Test("language it is transcribed by the multilingual model, and verbose_json says italian")
        func italian() async throws {
            let reply = try await transcribe(language: "it")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["language"] as? String == "italian")
            let text = (reply.json?["text"] as? String ?? "").lowercased()
            #expect(text.contains("roma") || text.contains("domani"), "transcript: \(text)")
        }

        @Test("language auto detects Italian and reports it")
        func detected() async throws {
            let reply = try await transcribe(language: "auto")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["language"] as? String == "italian", "\(reply.text)")
        }

        @Test("an unknown language is the client's fault (400), before any audio is transcribed")
        func unknown() async throws {
            let reply = try await transcribe(language: "klingon")
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.text.contains("language"))
        }
    }
}
