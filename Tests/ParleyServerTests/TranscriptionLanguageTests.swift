import Foundation
import ParleyCore
import Testing

extension OnDeviceServerTests {
    /// `/v1/audio/transcriptions`' `language` on the on-device engines, with synthetic Italian
    /// speech (espeak-ng's Italian voice).
    @Suite("the transcription API's language")
    struct TranscriptionLanguage {
        static func italian() throws -> Data {
            try spoken("Buongiorno, vorrei sapere che tempo farà domani a Roma, perché devo andare al mare con i miei amici.", voice: "it")
        }

        /// `text` said by espeak-ng's `voice`, as a WAV file.
        static func spoken(_ text: String, voice: String) throws -> Data {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["espeak-ng", "-v", voice, "--stdout", text]
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

    /// A spoken Spanish question over the realtime WebSocket, with the language asked for as
    /// OpenAI documents it (synthetic speech: espeak-ng's Spanish voice).
    @Suite("realtime in Spanish on the on-device engines")
    struct RealtimeLanguage {
        @Test("input_audio_transcription.language es: heard in Spanish, answered, and spoken by espeak-ng's Spanish voice")
        func spanishQuestion() async throws {
            let server = try await TestServer.start()
            defer { server.stop() }
            let question = try WAV.decode(try TranscriptionLanguage.spoken("¿Cuál es la capital de Francia?", voice: "es"))
            try await RealtimeTestClient.with(server) { client in
                try await client.send(["type": "session.update", "session": ["input_audio_transcription": ["model": "whisper-1", "language": "es"]]])
                try await client.next("session.updated")
                try await client.append(question.followed(bySilence: 1.5))
                let transcript = try await client.next("conversation.item.input_audio_transcription.completed", within: 120)
                #expect((transcript["transcript"] as? String)?.lowercased().contains("francia") == true, "\(transcript)")
                // The language was given, not detected: nothing to report beside the transcript.
                #expect(transcript["parley"] == nil, "\(transcript)")
                let done = try await client.next("response.done", within: 180)
                let response = done["response"] as? [String: Any]
                #expect(response?["status"] as? String == "completed", "\(done)")
                let audio = await client.all().filter { $0["type"] as? String == "response.output_audio.delta" }
                    .compactMap { ($0["delta"] as? String).flatMap { Data(base64Encoded: $0) } }.reduce(0) { $0 + $1.count }
                #expect(Double(audio) / 2 / 24_000 > 0.5, "\(audio) bytes of reply audio")
                let parley = response?["parley"] as? [String: Any]
                let providers = parley?["providers"] as? [String: Any]
                #expect((providers?["tts"] as? String)?.hasPrefix("espeak-ng") == true, "\(parley ?? [:])")
            }
        }

        @Test("input_audio_transcription.language auto: the completed transcript carries the language heard (parley.language)")
        func detectedLanguage() async throws {
            let server = try await TestServer.start()
            defer { server.stop() }
            let question = try WAV.decode(try TranscriptionLanguage.italian())
            try await RealtimeTestClient.with(server) { client in
                try await client.send(["type": "session.update", "session": ["input_audio_transcription": ["model": "whisper-1", "language": "auto"]]])
                try await client.next("session.updated")
                try await client.append(question.followed(bySilence: 1.5))
                let transcript = try await client.next("conversation.item.input_audio_transcription.completed", within: 120)
                let parley = transcript["parley"] as? [String: Any]
                #expect(parley?["language"] as? String == "it", "\(transcript)")
                let text = (transcript["transcript"] as? String ?? "").lowercased()
                #expect(text.contains("roma") || text.contains("domani"), "\(transcript)")
            }
        }

        @Test("an unknown language in input_audio_transcription is an error event naming the parameter")
        func unknownLanguage() async throws {
            let server = try await TestServer.start()
            defer { server.stop() }
            try await RealtimeTestClient.with(server) { client in
                try await client.send(["type": "session.update", "session": ["input_audio_transcription": ["language": "klingon"]]])
                let error = try await client.next("error")
                let detail = error["error"] as? [String: Any]
                #expect((detail?["param"] as? String)?.contains("language") == true, "\(error)")
            }
        }
    }
}
