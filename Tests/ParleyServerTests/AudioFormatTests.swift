import Foundation
import ParleyCore
import ParleyProcess
import Testing

/// Runs an audio tool of the test machine (ffmpeg, ffprobe): the independent decoder and
/// encoder the format tests check the server against.
enum AudioTool {
    static var isAvailable: Bool { ChildProcess.locate("ffmpeg") != nil && ChildProcess.locate("ffprobe") != nil }

    static func run(_ tool: String, _ arguments: [String], input: Data = Data()) async throws -> Data {
        let path = try #require(ChildProcess.locate(tool), "\(tool) is not installed (scripts/setup installs ffmpeg)")
        let output = try await ChildProcess.run(path, arguments: arguments, input: input)
        guard output.status == 0 else {
            Issue.record("\(tool) \(arguments.joined(separator: " ")): \(String(decoding: output.standardError, as: UTF8.self))")
            throw CancellationError()
        }
        return output.standardOutput
    }

    /// ffprobe's codec name, sample rate and channel count of the first audio stream in `data`.
    static func probe(_ data: Data) async throws -> (codec: String, rate: Int, channels: Int) {
        let text = String(
            decoding: try await run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,sample_rate,channels",
                    "-of", "default=noprint_wrappers=1", "-i", "pipe:0",
                ], input: data), as: UTF8.self)
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        return (fields["codec_name"] ?? "", Int(fields["sample_rate"] ?? "") ?? 0, Int(fields["channels"] ?? "") ?? 0)
    }

    /// `data` decoded by ffmpeg (not the server's code) into a 16 kHz WAV; `input` names a raw
    /// format ffmpeg cannot tell by itself.
    static func wav(_ data: Data, input: [String] = []) async throws -> Data {
        try await run("ffmpeg", ["-v", "error"] + input + ["-i", "pipe:0", "-ac", "1", "-ar", "16000", "-f", "wav", "pipe:1"], input: data)
    }

    /// `wav` encoded by ffmpeg into `format` (its muxer name) with `codec`.
    static func encode(_ wav: Data, codec: [String], format: String) async throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString).\(format)")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await run("ffmpeg", ["-v", "error", "-y", "-i", "pipe:0"] + codec + ["-f", format, file.path], input: wav)
        return try Data(contentsOf: file)
    }
}

extension OnDeviceServerTests {
    /// Every speech format out and every recording format in, checked by ffmpeg and ffprobe
    /// as independent decoders and by transcribing the audio back.
    @Suite("audio formats", .enabled(if: AudioTool.isAvailable))
    struct AudioFormats {
        static func words(_ text: String) -> [String] { AudioEndpoints.words(text) }

        /// Transcribes a WAV through the server.
        static func transcribe(
            _ wav: Data, server: TestServer, fields: [(String, String)] = [], filename: String = "audio.wav"
        ) async throws -> TestServer.Reply {
            var form = FormBody()
            for (name, value) in fields { form.add(name, value) }
            form.add(file: "file", filename: filename, wav)
            return try await server.send(.POST, "/v1/audio/transcriptions", headers: [("content-type", form.contentType)], body: form.finished)
        }

        @Test(
            "speech in each format: the right media type and codec, and ffmpeg's decoding of it is heard as the sentence",
            arguments: [
                ("mp3", "mp3", "audio/mpeg"), ("opus", "opus", "audio/ogg"), ("aac", "aac", "audio/aac"), ("flac", "flac", "audio/flac"),
                ("wav", "pcm_s16le", "audio/wav"), ("pcm", "", "audio/pcm"),
            ])
        func speechFormat(format: String, codec: String, contentType: String) async throws {
            let server = try await TestServer.onDevice.value
            // espeak-ng: the same audio every time, so whisper's hearing of it is the format's doing
            // (the neural voice varies from one synthesis to the next, as Piper's noise does).
            let reply = try await server.post(
                "/v1/audio/speech",
                json: [
                    "model": "espeak-ng", "input": "What is the capital of France?", "voice": "alloy",
                    "response_format": format,
                ])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["content-type"] == contentType)
            let wav: Data
            if format == "pcm" {
                wav = try await AudioTool.wav(reply.body, input: ["-f", "s16le", "-ar", "24000", "-ac", "1"])
            } else {
                let probe = try await AudioTool.probe(reply.body)
                #expect(probe.codec == codec && probe.channels == 1, "\(probe)")
                // Opus decodes at 48 kHz whatever it was given; WAV keeps the voice's rate.
                if format != "opus", format != "wav" { #expect(probe.rate == 24_000, "\(probe)") }
                wav = try await AudioTool.wav(reply.body)
            }
            let audio = try WAV.decode(wav)
            #expect(audio.duration > 1 && audio.duration < 6, "\(audio.duration) s")
            let text = try await Self.transcribe(wav, server: server).json?["text"] as? String ?? ""
            // whisper tiny.en hears espeak-ng's "France" as "friends" or "and" after some lossy
            // codecs (opus once in CI): the sentence's other words are what it hears reliably.
            #expect(["what", "is", "the", "capital"].allSatisfy(Self.words(text).contains), "\(format): \(text)")
        }

        @Test("OpenAI's default format is mp3, and speed changes the length")
        func defaultsAndSpeed() async throws {
            let server = try await TestServer.onDevice.value
            let normal = try await server.post("/v1/audio/speech", json: ["input": "The capital of France is Paris.", "response_format": "pcm"])
            let fast = try await server.post("/v1/audio/speech", json: ["input": "The capital of France is Paris.", "response_format": "pcm", "speed": 2])
            #expect(fast.body.count < normal.body.count * 3 / 4, "\(fast.body.count) vs \(normal.body.count) bytes")
            let plain = try await server.post("/v1/audio/speech", json: ["input": "Hello."])
            #expect(plain.headers["content-type"] == "audio/mpeg")
            #expect(try await AudioTool.probe(plain.body).codec == "mp3")
        }

        @Test("each of OpenAI's voice names is a different espeak-ng voice; the neural voice (one speaker) takes them all as itself")
        func distinctVoices() async throws {
            let server = try await TestServer.onDevice.value
            var seen: [Data: String] = [:]
            for voice in StandardVoice.allCases {
                let reply = try await server.post(
                    "/v1/audio/speech",
                    json: [
                        "model": "espeak-ng", "input": "Good morning.", "voice": voice.rawValue,
                        "response_format": "pcm",
                    ])
                #expect(reply.status == 200, "\(voice): \(reply.text)")
                if let other = seen[reply.body] { Issue.record("\(voice) sounds exactly like \(other)") }
                seen[reply.body] = voice.rawValue
            }
            let neural = try await server.post(
                "/v1/audio/speech", json: ["model": "neural", "input": "Good morning.", "voice": "nova", "response_format": "pcm"])
            #expect(neural.status == 200 && neural.headers["x-parley-provider"]?.hasPrefix("sherpa-onnx") == true, "\(neural.headers)")
        }

        @Test("stream_format sse: base64 mp3 in speech.audio.delta events that join into one playable file, then speech.audio.done with usage")
        func speechEvents() async throws {
            let server = try await TestServer.onDevice.value
            let reply = try await server.post(
                "/v1/audio/speech",
                json: [
                    "model": "espeak-ng", "input": "What is the capital of France? Tell me.",
                    "response_format": "mp3", "stream_format": "sse",
                ])
            #expect(reply.status == 200 && reply.headers["content-type"] == "text/event-stream", "\(reply.text.prefix(300))")
            let objects = events(in: reply.text).compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let deltas = objects.filter { $0["type"] as? String == "speech.audio.delta" }
            #expect(deltas.count > 1)
            let done = try #require(objects.last)
            #expect(done["type"] as? String == "speech.audio.done")
            #expect(((done["usage"] as? [String: Any])?["input_tokens"] as? Int ?? 0) > 0, "\(done)")
            var mp3 = Data()
            for delta in deltas { mp3.append(try #require(Data(base64Encoded: delta["audio"] as? String ?? ""))) }
            let wav = try await AudioTool.wav(mp3)
            let text = try await Self.transcribe(wav, server: server).json?["text"] as? String ?? ""
            #expect(Self.words(text).contains("france"), "\(text)")
        }

        @Test(
            "recordings as browsers and phones make them are transcribed",
            arguments: [
                ("webm", ["-c:a", "libopus"]), ("ogg", ["-c:a", "libopus"]), ("mp3", ["-c:a", "libmp3lame", "-b:a", "96k"]),
                ("ipod", ["-c:a", "aac", "-b:a", "96k"]), ("flac", ["-c:a", "flac"]), ("aiff", ["-c:a", "pcm_s16be"]),
            ])
        func recordingFormat(muxer: String, codec: [String]) async throws {
            let server = try await TestServer.onDevice.value
            let file = try await AudioTool.encode(try Samples.question(), codec: codec, format: muxer)
            // The file name says nothing: the server goes by the bytes.
            let reply = try await Self.transcribe(file, server: server, filename: "recording")
            #expect(reply.status == 200, "\(muxer): \(reply.text)")
            let text = reply.json?["text"] as? String ?? ""
            #expect(Self.words(text).contains("capital") && Self.words(text).contains("france"), "\(muxer): \(text)")
        }

        @Test("srt and vtt subtitles parse and their times fall inside the audio; verbose_json times each word")
        func timedFormats() async throws {
            let server = try await TestServer.onDevice.value
            let question = try Samples.question()
            let duration = try WAV.decode(question).duration
            for format in ["srt", "vtt"] {
                let reply = try await Self.transcribe(question, server: server, fields: [("response_format", format)])
                #expect(reply.status == 200, "\(reply.text)")
                let lines = reply.text.components(separatedBy: "\n")
                if format == "vtt" { #expect(lines.first == "WEBVTT") } else { #expect(lines.first == "1") }
                let cues = lines.filter { $0.contains(" --> ") }
                #expect(!cues.isEmpty, "\(reply.text)")
                for cue in cues {
                    let times = cue.components(separatedBy: " --> ").map { Self.seconds($0, separator: format == "srt" ? "," : ".") }
                    #expect(times.count == 2 && times[0] >= 0 && times[0] <= times[1] && times[1] <= duration + 0.01, "\(cue) in \(duration) s")
                }
                #expect(Self.words(reply.text).contains("france"), "\(reply.text)")
            }
            let verbose = try await Self.transcribe(
                question, server: server, fields: [("response_format", "verbose_json"), ("timestamp_granularities[]", "word")])
            let words = try #require(verbose.json?["words"] as? [[String: Any]], "\(verbose.text)")
            #expect(words.compactMap { ($0["word"] as? String)?.lowercased() }.contains { $0.hasPrefix("france") }, "\(words)")
            var last = 0.0
            for word in words {
                let start = word["start"] as? Double ?? -1, end = word["end"] as? Double ?? -1
                #expect(start >= last - 0.05 && start <= end && end <= duration + 0.01, "\(word)")
                last = start
            }
        }

        static func seconds(_ stamp: String, separator: String) -> Double {
            let parts = stamp.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: separator, with: ":").split(separator: ":").compactMap {
                Double($0)
            }
            guard parts.count == 4 else { return -1 }
            return parts[0] * 3_600 + parts[1] * 60 + parts[2] + parts[3] / 1_000
        }

        @Test("stream=true sends transcript.text.delta events and transcript.text.done; translations write the English")
        func streamedAndTranslated() async throws {
            let server = try await TestServer.onDevice.value
            let question = try Samples.question()
            let streamed = try await Self.transcribe(question, server: server, fields: [("stream", "true")])
            #expect(streamed.headers["content-type"] == "text/event-stream", "\(streamed.text)")
            let objects = events(in: streamed.text).compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let deltas = objects.filter { $0["type"] as? String == "transcript.text.delta" }.compactMap { $0["delta"] as? String }
            let done = objects.last
            #expect(done?["type"] as? String == "transcript.text.done")
            #expect(deltas.joined() == done?["text"] as? String, "\(objects)")
            #expect(Self.words(deltas.joined()).contains("france"))

            var form = FormBody()
            form.add(file: "file", filename: "question.wav", question)
            let translated = try await server.send(.POST, "/v1/audio/translations", headers: [("content-type", form.contentType)], body: form.finished)
            #expect(translated.status == 200, "\(translated.text)")
            let english = Self.words(translated.json?["text"] as? String ?? "")
            #expect(english.contains("france"), "\(translated.text)")
        }

        @Test("bad audio: each a clear 400, the server unharmed")
        func badAudio() async throws {
            let server = try await TestServer.onDevice.value
            var random = SystemRandomNumberGenerator()
            let noise = Data((0..<4_000).map { _ in UInt8.random(in: 0...255, using: &random) })
            let mp3 = try await AudioTool.encode(try Samples.question(), codec: ["-c:a", "libmp3lame"], format: "mp3")
            let corruptMP3 = Data("ID3".utf8) + Data([3, 0, 0, 0, 0, 0]) + noise
            // Eight hours of silence, small as FLAC: refused without decoding the hours.
            let long = try await AudioTool.run(
                "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "anullsrc=r=1000:cl=mono", "-t", "28800", "-c:a", "flac", "-f", "flac", "pipe:1"])
            for (name, body, code) in [
                ("noise", noise, "invalid_audio"), ("corrupt mp3", corruptMP3, "invalid_audio"),
                ("mp3 head only", mp3.prefix(300), "invalid_audio"), ("8 hours", long, "audio_too_long"),
            ] {
                let reply = try await Self.transcribe(body, server: server, filename: "upload")
                expectOpenAIError(reply, status: 400, code: code, param: "file")
                #expect(!reply.text.contains("/tmp"), "\(name) names a server path: \(reply.text)")
            }
            let unknown = try await server.post("/v1/audio/speech", json: ["input": "Hi.", "response_format": "ogg"])
            expectOpenAIError(unknown, status: 400, param: "response_format")
            let sse = try await server.post("/v1/audio/speech", json: ["input": "Hi.", "stream_format": "chunks"])
            expectOpenAIError(sse, status: 400, param: "stream_format")
            #expect(try await server.send(.GET, "/health").status == 200)
        }
    }
}
