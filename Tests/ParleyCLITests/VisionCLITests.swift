import Foundation
import ParleyTestLanes
import ParleyTestServers
import ParleyTesting
import Testing

/// `parley ask --image` and `parley materials`, as a user runs them, on pages the test draws.
@Suite("images and study materials from the command line", .serialized, .onDeviceEngines)
struct VisionCLITests {
    static let page = RenderedPage(
        title: "The Water Cycle",
        paragraphs: [
            "Water evaporates from the oceans and rises as vapour.",
            "It cools, condenses into clouds and falls as rain.",
        ])

    @Test("offline, a question about a photographed page is answered from its text, with a warning saying so")
    func offlineOCR() async throws {
        var photo = Self.page
        photo.noisy = true
        let image = try CLI.temporaryFile("page.png", contents: try photo.png())
        defer { try? FileManager.default.removeItem(at: image) }
        let result = try await CLI.run(["ask", "--image", image.path, "What is the title of this page?"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.lowercased().contains("water cycle"), "answer: \(result.stdout)")
        #expect(result.stderr.contains("read as text only by tesseract"))
    }

    @Test("an OpenAI-compatible vision server gets the image as a data URL; with it dead, the page is read by OCR")
    func visionServer() async throws {
        let png = try Self.page.png()
        let image = try CLI.temporaryFile("page.png", contents: png)
        defer { try? FileManager.default.removeItem(at: image) }
        let events = [
            #"{"choices":[{"index":0,"delta":{"content":"I see a page titled The Water Cycle."},"finish_reason":"stop"}]}"#, "[DONE]",
        ].map { "data: \($0)\n\n" }.joined()
        let server = try await WireServer.start { request in
            request.path == "/v1/chat/completions"
                ? .stream(contentType: "text/event-stream", chunks: [Data(events.utf8)])
                : .json(404, #"{"error":{"message":"no such route"}}"#)
        }
        defer { server.stop() }
        let seen = try await CLI.run(
            ["ask", "--image", image.path, "--json", "What is the title?"],
            environment: ["OPENAI_API_KEY": "sk-test-vision", "OPENAI_BASE_URL": server.baseURL + "/v1"])
        #expect(seen.status == 0, "stderr: \(seen.stderr)")
        #expect(seen.stdout.contains("I see a page titled The Water Cycle."))
        #expect(seen.stdout.contains(#""provider":"openai"#))
        #expect(!seen.stderr.contains("read as text only"))
        let sent = try #require(await server.requests.last?.json)
        let messages = try #require(sent["messages"] as? [[String: Any]])
        let parts = try #require(messages.last?["content"] as? [[String: Any]])
        let url = try #require(parts.compactMap { ($0["image_url"] as? [String: Any])?["url"] as? String }.first as String?)
        #expect(url == "data:image/png;base64,\(png.base64EncodedString())")
        #expect(parts.contains { $0["type"] as? String == "text" && $0["text"] as? String == "What is the title?" })

        server.stop()
        let fallen = try await CLI.run(
            ["ask", "--image", image.path, "What is the title of this page?"],
            environment: ["OPENAI_API_KEY": "sk-test-vision", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"])
        #expect(fallen.status == 0, "stderr: \(fallen.stderr)")
        #expect(fallen.stdout.lowercased().contains("water cycle"), "answer: \(fallen.stdout)")
        #expect(fallen.stderr.contains("read as text only by tesseract"))
        #expect(!fallen.stderr.contains("sk-test-vision"))
    }

    @Test("bad images are one sentence each, before anything loads")
    func badImages() async throws {
        let cut = try CLI.temporaryFile("cut.png", contents: try Self.page.png().prefix(300))
        let text = try CLI.temporaryFile("notes.png", contents: Data("not an image".utf8))
        defer { for url in [cut, text] { try? FileManager.default.removeItem(at: url) } }
        let truncated = try await CLI.run(["ask", "--image", cut.path, "What is this?"])
        #expect(truncated.status == 1)
        #expect(truncated.stderr == "error: The PNG image \(cut.path) is cut short (incomplete download or copy?); get the whole file again.\n")
        let wrong = try await CLI.run(["ask", "--image", text.path, "What is this?"])
        #expect(wrong.stderr == "error: \(text.path) is not a PNG, JPEG or WebP image; convert it to one of those.\n")
    }

    @Test("materials: a two-page PDF is added and asked about; bad files leave nothing stored")
    func materials() async throws {
        let database = CLI.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let env = ["PARLEY_DATABASE": database.path]
        let second = RenderedPage(title: "Clouds", paragraphs: ["Clouds are made of tiny drops of water."])
        let pdf = try CLI.temporaryFile("cycle.pdf", contents: try RenderedPage.pdf([Self.page, second]))
        let blank = try CLI.temporaryFile("blank.pdf", contents: try RenderedPage.pdf([RenderedPage(title: "", paragraphs: [])]))
        let cut = try CLI.temporaryFile("cut.png", contents: try Self.page.png().prefix(300))
        defer { for url in [pdf, blank, cut] { try? FileManager.default.removeItem(at: url) } }

        for bad in [blank, cut] {
            let refused = try await CLI.run(["materials", "add", bad.path], environment: env)
            #expect(refused.status == 1)
            #expect(refused.stderr.hasPrefix("error: ") && refused.stderr.split(separator: "\n").count == 1, "stderr: \(refused.stderr)")
        }
        let empty = try await CLI.run(["materials", "list", "--json"], environment: env)
        #expect(empty.stdout.contains(#""materials" : ["#) && !empty.stdout.contains(#""id""#), "nothing stored: \(empty.stdout)")

        let added = try await CLI.run(["materials", "add", pdf.path, "--title", "Water", "--json"], environment: env)
        #expect(added.status == 0, "stderr: \(added.stderr)")
        let material = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        #expect(material["page_count"] as? Int == 2)
        #expect(material["read_by"] as? String == "pdftotext")
        let id = try #require(material["id"] as? Int)
        let text = try #require(material["text"] as? String)
        #expect(RenderedPage.words(in: text) == Self.page.words + second.words)

        let shown = try await CLI.run(["materials", "show", String(id)], environment: env)
        #expect(shown.stdout.hasPrefix("# Water (pdf, 2 pages"))
        let asked = try await CLI.run(["ask", "--material", String(id), "What is the title of the second page?"], environment: env)
        #expect(asked.status == 0, "stderr: \(asked.stderr)")
        #expect(asked.stdout.lowercased().contains("clouds"), "answer: \(asked.stdout)")

        let removed = try await CLI.run(["materials", "rm", String(id)], environment: env)
        #expect(removed.stdout == "Removed material \(id).\n")
        let again = try await CLI.run(["materials", "rm", String(id)], environment: env)
        #expect(again.stderr == "error: no study material has id \(id): run `parley materials list` to see the materials and their ids\n")
    }
}
