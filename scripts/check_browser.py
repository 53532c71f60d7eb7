#!/usr/bin/env python3
"""Drives Parley's browser client in a real, headless Chromium over the DevTools protocol.

    check_browser.py BASE_URL API_KEY QUESTION_WAV OUTPUT_DIR

BASE_URL is a running `parley serve` (started with PARLEY_API_KEYS=API_KEY); QUESTION_WAV is
the spoken question "What is the capital of France?" that Chromium plays as its fake
microphone. With the keyboard only, it enters the key, walks the tab order (every control
reached and named), talks with the space bar (the orb's state announced, partial and final
transcripts shown), corrects the transcript in the review and sends it (Ctrl+Enter), hears the
reply (the page's playback counters) and types a second question; then it attaches and removes
an image, reloads to find the thread in the history, stashes a reply, corrects a past
transcript, opens Settings (provider health, and compares the language models on a question), saves settings that come back from the server after
the browser forgets them, draws a mind map of the conversation, and fails on any console error. A second browser,
whose microphone says the question again and again, talks hands-free until the question comes
back over a reply: barge-in stops the reply, and the server saves it only as far as it was
heard. With --media-recorder it only records the question with MediaRecorder (webm/opus) in a
fresh browser and uploads it to /v1/audio/transcriptions, as a web app without the realtime
client would (scripts/test-browser runs that last: run before Firefox's check, it turned
Firefox's transcript of the question into "capital of friends", which is not understood yet). Screenshots of each state go to OUTPUT_DIR. Prints one "ok:" line per check; exits 1
with the reason on the first failure.

Needs the `websockets` package (the project venv has it) and Chromium (`chromium`, or the
binary named by CHROMIUM).
"""

import asyncio
import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from websockets.asyncio.client import connect

EDITED = "What is the capital city of France?"
TYPED = "What is the capital of France?"
CORRECTED = "What's the capital of France?"


class CheckFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


class Page:
    """One tab, driven over a flattened DevTools session."""

    def __init__(self, socket, session):
        self.socket = socket
        self.session = session
        self.ids = itertools.count(1)
        self.waiting = {}
        self.console_errors = []
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        async for message in self.socket:
            event = json.loads(message)
            if "id" in event and event["id"] in self.waiting:
                self.waiting.pop(event["id"]).set_result(event)
                continue
            method = event.get("method")
            params = event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                self.console_errors.append(details.get("exception", {}).get("description") or details.get("text"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                self.console_errors.append(" ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                self.console_errors.append(f"{entry.get('text')} {entry.get('url', '')}".strip())

    async def send(self, method, params=None, session=True):
        number = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[number] = future
        message = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        await self.socket.send(json.dumps(message))
        reply = await asyncio.wait_for(future, 60)
        if "error" in reply:
            raise CheckFailed(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def eval(self, expression):
        result = await self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise CheckFailed(f"script failed: {expression}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    async def wait_for(self, expression, what, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = await self.eval(expression)
            if value:
                return value
            await asyncio.sleep(0.1)
        raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}")

    async def key(self, key, code=None, text=None, modifiers=0, key_code=None):
        base = {"key": key, "code": code or key, "modifiers": modifiers}
        if key_code:
            base["windowsVirtualKeyCode"] = key_code
        down = dict(base, type="keyDown" if text else "rawKeyDown")
        if text:
            down["text"] = text
        await self.send("Input.dispatchKeyEvent", down)
        await self.send("Input.dispatchKeyEvent", dict(base, type="keyUp"))

    async def tab(self, backwards=False):
        await self.key("Tab", "Tab", modifiers=8 if backwards else 0, key_code=9)

    async def enter(self, modifiers=0):
        await self.key("Enter", "Enter", text="\r", modifiers=modifiers, key_code=13)

    async def space(self):
        await self.key(" ", "Space", text=" ", key_code=32)

    async def type(self, text):
        await self.send("Input.insertText", {"text": text})

    async def screenshot(self, directory, name):
        await asyncio.sleep(0.4)  # the orb's colour eases into a new state
        shot = await self.send("Page.captureScreenshot", {"format": "png"})
        path = os.path.join(directory, f"{name}.png")
        with open(path, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
        print(f"screenshot: {path}")


async def dump(page, output):
    """What the page shows when a check fails: a screenshot, its state and its console errors."""
    try:
        await page.screenshot(output, "failure")
        print("page state:", await page.eval(
            "JSON.stringify({url: location.href, orb: window.parleyClient?.orbState, thread: window.parleyClient?.thread,"
            " connected: window.parleyClient?.connected, stats: window.parleyClient?.stats, audio: window.parleyClient?.audio,"
            " status: document.getElementById('orb-status')?.textContent, alerts: document.getElementById('alerts')?.textContent,"
            " threads: document.querySelectorAll('.thread-open').length, bubbles: document.querySelectorAll('.bubble').length})"))
    except Exception as error:  # the page may be gone
        print(f"page state unavailable: {error}")
    if page.console_errors:
        print("console errors:", page.console_errors)


def api(base, key, path):
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


async def launch(question, profile, loop=False):
    binary = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not binary:
        raise CheckFailed("Chromium is not installed: scripts/setup installs Debian's chromium")
    arguments = [
        binary, "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio", "--disable-dev-shm-usage",
        f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1280,900",
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={question}{'' if loop else '%noloop'}", "--autoplay-policy=no-user-gesture-required",
        "about:blank",
    ]
    if os.geteuid() == 0:
        arguments.insert(1, "--no-sandbox")
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = await asyncio.to_thread(process.stderr.readline)
        match = re.search(r"DevTools listening on (ws://\S+)", line)
        if match:
            # Keep draining stderr so that Chromium never blocks on a full pipe.
            asyncio.get_running_loop().run_in_executor(None, lambda: [None for _ in process.stderr])
            return process, match.group(1)
        if not line and process.poll() is not None:
            break
    process.kill()
    raise CheckFailed("Chromium did not start (no DevTools endpoint)")


# Every visible control that can take focus, each given a number to recognise it by.
CONTROLS = """(() => {
  const controls = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
    .filter((element) => element.tabIndex >= 0 && !element.disabled && !element.closest('dialog:not([open]), [hidden]')
      && element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden');
  controls.forEach((element, index) => { element.dataset.check = String(index); });
  return controls.map((element) => element.id || element.textContent.trim().slice(0, 30));
})()"""

# A control's name as assistive technology gets it (label, aria-label, text), roughly.
UNNAMED = """(() => [...document.querySelectorAll('[data-check]')].filter((element) => {
  const labelled = element.getAttribute('aria-label') || (element.labels && [...element.labels].some((label) => label.textContent.trim()))
    || (element.getAttribute('aria-labelledby') || '').split(' ').some((id) => document.getElementById(id)?.textContent.trim());
  const text = ['BUTTON', 'A'].includes(element.tagName) && element.textContent.trim();
  return !(labelled || text);
}).map((element) => element.outerHTML.slice(0, 80)))()"""


async def check(base, key, question, output):
    await with_page(question, output, False, lambda page: drive(page, base, key, output))
    # Hands-free, with the question said again and again: it comes back while the reply plays.
    await with_page(question, output, True, lambda page: barge_in(page, base, key, output))


async def with_page(question, output, loop, body):
    """Runs `body` on a tab of a Chromium of its own, whose microphone plays `question`."""
    profile = tempfile.mkdtemp(prefix="parley-chromium-")
    process, endpoint = await launch(question, profile, loop)
    try:
        async with connect(endpoint, max_size=None) as browser:
            page = Page(browser, None)
            try:
                target = await page.send("Target.createTarget", {"url": "about:blank"}, session=False)
                attached = await page.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=False)
                page.session = attached["sessionId"]
                for domain in ("Page", "Runtime", "Log"):
                    await page.send(f"{domain}.enable")
                await body(page)
            except CheckFailed:
                await dump(page, output)
                raise
            finally:
                page.reader.cancel()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)


async def enter_key(page, base, key):
    await page.send("Page.navigate", {"url": base + "/"})
    await page.wait_for("document.getElementById('key-dialog')?.open", "the API key dialog")
    expect(await page.eval("document.activeElement.id") == "key-input", "the key field does not have the focus")
    await page.type(key)
    await page.enter()
    await page.wait_for("!document.getElementById('key-dialog').open", "the key to be accepted")
    await page.wait_for("window.parleyClient.connected", "the realtime connection (key as a subprotocol)")


RECORD_AND_UPLOAD = """(async () => {
  const stream = await navigator.mediaDevices.getUserMedia({audio: true});
  const wanted = 'audio/webm;codecs=opus';
  const recorder = new MediaRecorder(stream, MediaRecorder.isTypeSupported(wanted) ? {mimeType: wanted} : {});
  const chunks = [];
  recorder.ondataavailable = (event) => { if (event.data.size) chunks.push(event.data); };
  const stopped = new Promise((resolve) => { recorder.onstop = resolve; });
  recorder.start(250);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  recorder.stop();
  await stopped;
  stream.getTracks().forEach((track) => track.stop());
  const blob = new Blob(chunks, {type: recorder.mimeType});
  const form = new FormData();
  form.append('file', blob, 'recording.webm');
  form.append('model', 'whisper-1');
  const reply = await fetch('/v1/audio/transcriptions', {method: 'POST', headers: {Authorization: 'Bearer KEY'}, body: form});
  return {status: reply.status, mime: recorder.mimeType, size: blob.size, body: await reply.text()};
})()"""


async def media_recorder_upload(page, key):
    """What a web app without the realtime client does: MediaRecorder's webm/opus, uploaded whole."""
    result = await page.eval(RECORD_AND_UPLOAD.replace("KEY", key))
    expect(result and result["status"] == 200, f"the MediaRecorder upload was refused: {result}")
    expect("webm" in result["mime"], f"Chromium did not record webm: {result['mime']}")
    text = json.loads(result["body"]).get("text", "")
    words = re.findall(r"[a-z]+", text.lower())
    expect("capital" in words and "france" in words, f"the webm/opus recording was heard as: {text!r}")
    print(f"ok: a MediaRecorder recording ({result['mime']}, {result['size']} bytes) uploaded and transcribed: “{text}”")


async def barge_in(page, base, key, output):
    await enter_key(page, base, key)
    # Another browser, another profile: the settings saved by the first come with the key.
    await page.wait_for("document.documentElement.classList.contains('large-text')", "the key's settings in another browser")
    print("ok: the settings saved in the first browser apply in a second one with the same key")
    # Hands-free on, review off, by keyboard: focus each box and press space.
    for box in ("continuous", "review-toggle"):
        await page.eval(f"document.getElementById('{box}').focus()")
        await page.space()
    expect(await page.eval("document.getElementById('continuous').checked && !document.getElementById('review-toggle').checked"),
           "the hands-free and review boxes did not follow the space bar")
    await page.eval("document.getElementById('orb').focus()")
    await page.enter()
    await page.wait_for("window.parleyClient.capture === 'continuous'", "hands-free listening")
    detection = await page.eval("window.parleyClient.turnDetection")
    expect(detection and detection.get("type") == "semantic_vad" and detection.get("eagerness") == "auto",
           f"hands-free turns are not ended by the words (semantic_vad, the default): {detection}")
    await page.wait_for("window.parleyClient.stats.interruptions >= 1", "the reply to be interrupted by speech", timeout=180)
    await page.screenshot(output, "9-barge-in")
    await page.wait_for("[...document.querySelectorAll('.bubble.assistant .facts')].some((f) => f.textContent.includes('interrupted'))",
                        "the interrupted reply to be marked", timeout=60)
    await page.eval("document.getElementById('orb').focus()")
    await page.enter()
    await page.wait_for("window.parleyClient.capture === null", "hands-free to stop")
    thread = await page.wait_for("window.parleyClient.thread", "the thread of the hands-free conversation", timeout=60)
    deadline = time.monotonic() + 60
    while True:
        messages = api(base, key, f"/v1/threads/{thread}")["messages"]
        cut = [message for message in messages if message["role"] == "assistant" and message["interrupted"]]
        if cut or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    expect(cut, f"no saved reply is marked interrupted: {[(m['role'], m['text'], m['interrupted']) for m in messages]}")
    print(f"ok: hands-free barge-in: speech over the reply stopped it; saved as heard: “{cut[0]['text']}”")
    expect(not page.console_errors, f"console errors: {page.console_errors}")


async def drive(page, base, key, output):
    # The key, asked for because /health says the server needs one.
    await enter_key(page, base, key)
    print("ok: the page asked for the API key and opened the realtime connection with it")

    # Keyboard only: the tab order reaches every control, and each has a name.
    controls = await page.eval(CONTROLS)
    await page.eval("document.activeElement.blur()")
    reached = set()
    for _ in range(len(controls) + 10):
        await page.tab()
        focused = await page.eval("document.activeElement.dataset.check ?? null")
        if focused is not None:
            reached.add(int(focused))
    missing = [controls[index] for index in range(len(controls)) if index not in reached]
    expect(not missing, f"the tab order never reaches: {missing}")
    unnamed = await page.eval(UNNAMED)
    expect(not unnamed, f"controls without an accessible name: {unnamed}")
    live = await page.eval("(() => { const s = document.getElementById('orb-status'); return s.getAttribute('aria-live') || s.getAttribute('role'); })()")
    expect(live in ("polite", "assertive", "status"), "the orb's status line is not a live region")
    print(f"ok: keyboard: Tab reaches all {len(controls)} controls, each has an accessible name; the orb's state is in a live region")
    await page.screenshot(output, "1-ready")

    # A spoken turn with the space bar: tap to start, tap to stop.
    await page.eval("document.activeElement.blur()")
    before = await page.eval("document.getElementById('orb-status').textContent")
    await page.space()
    await page.wait_for("window.parleyClient.capture === 'toggle'", "the space bar to start listening")
    announced = await page.wait_for(
        f"(() => {{ const t = document.getElementById('orb-status').textContent; return t !== {json.dumps(before)} && t; }})()",
        "the orb's state change in the live region")
    print(f"ok: the space bar started listening; the live region says “{announced}”")
    await page.wait_for("window.parleyClient.orbState === 'listening'", "speech to be detected", timeout=30)
    await page.screenshot(output, "2-listening")
    partial = await page.wait_for(
        "(() => { const live = document.getElementById('live-transcript'); const t = live.textContent.trim(); return !live.hidden && t && t !== '…' && t; })()",
        "a partial transcript", timeout=60)
    print(f"ok: partial transcript while speaking: “{partial}”")
    # The question lasts about 3 s from the moment the microphone opened.
    await asyncio.sleep(3.5)
    await page.space()
    heard = await page.wait_for(
        "(() => !document.getElementById('review').hidden && document.getElementById('review-text').value)()",
        "the final transcript in the review", timeout=120)
    expect("capital" in heard.lower() and "france" in heard.lower(), f"the final transcript is “{heard}”")
    expect(await page.eval("document.activeElement.id") == "review-text", "the review does not have the focus")
    print(f"ok: final transcript in the review: “{heard}”")
    await page.screenshot(output, "3-review")

    # Correct it (select all, type) and send it with Ctrl+Enter.
    await page.key("a", "KeyA", modifiers=2, key_code=65)
    await page.type(EDITED)
    await page.enter(modifiers=2)
    await page.wait_for("window.parleyClient.orbState === 'thinking'", "the orb to think")
    await page.screenshot(output, "4-thinking")
    await page.wait_for("window.parleyClient.orbState === 'speaking'", "the reply to be spoken", timeout=180)
    await page.screenshot(output, "5-speaking")
    reply = await page.wait_for(
        "(() => { const b = [...document.querySelectorAll('.bubble.assistant')]; const last = b[b.length - 1];"
        " return last && last.querySelector('.facts') && last.querySelector('.text').textContent; })()",
        "the reply to finish", timeout=180)
    expect("paris" in reply.lower(), f"the reply is “{reply}”")
    user_text = await page.eval("document.querySelector('.bubble.user .text').textContent")
    expect(user_text == EDITED, f"the chat shows “{user_text}” for the corrected question")
    facts = await page.eval("document.querySelector('.bubble.assistant .facts').textContent")
    print(f"ok: the reply “{reply}” ({facts})")
    await page.wait_for("window.parleyClient.orbState === 'idle'", "playback to end", timeout=60)
    stats = await page.eval("window.parleyClient.stats")
    expect(stats["chunksPlayed"] > 0 and stats["secondsPlayed"] > 0.3, f"no reply audio was played: {stats}")
    expect(stats["chunksSent"] > 20, f"too little microphone audio was sent: {stats}")
    print(f"ok: reply audio played: {stats['chunksPlayed']} chunks, {stats['secondsPlayed']:.1f} s")

    # What the model received: the correction, kept beside what was heard.
    thread = await page.eval("window.parleyClient.thread")
    expect(thread, "the page has no thread after the first turn")
    saved = api(base, key, f"/v1/threads/{thread}")
    first = saved["messages"][0]
    expect(first["role"] == "user" and first["text"] == EDITED, f"the model received “{first['text']}”")
    expect(first["raw_transcript"] and "france" in first["raw_transcript"].lower(), f"raw transcript: {first['raw_transcript']}")
    expect(first["edited_text"] == EDITED, f"edited text: {first['edited_text']}")
    print(f"ok: saved: the model received the correction; the raw transcript “{first['raw_transcript']}” is kept")

    # An image attached (the first screenshot), shown as a thumbnail, then removed again.
    found = await page.send("Runtime.evaluate", {"expression": "document.getElementById('image-input')"})
    await page.send("DOM.setFileInputFiles", {"files": [os.path.join(output, "1-ready.png")], "objectId": found["result"]["objectId"]})
    await page.wait_for("document.querySelectorAll('#attachments img').length === 1"
                        " && document.querySelector('#attachments img').src.startsWith('data:image/jpeg')", "the attached image's thumbnail")
    await page.eval("document.querySelector('#attachments button').click()")
    await page.wait_for("document.querySelectorAll('#attachments img').length === 0", "the image to be removed")
    print("ok: an attached image shows as a thumbnail (shrunk to JPEG) and can be removed")

    # A typed turn.
    await page.eval("document.getElementById('message').focus()")
    await page.type(TYPED)
    await page.enter()
    typed_reply = await page.wait_for(
        "(() => { const b = [...document.querySelectorAll('.bubble.assistant')];"
        " return b.length >= 2 && b[1].querySelector('.facts') && b[1].querySelector('.text').textContent; })()",
        "the typed question's reply", timeout=180)
    expect("paris" in typed_reply.lower(), f"the typed question's reply is “{typed_reply}”")
    print(f"ok: typed question answered: “{typed_reply}”")
    await page.wait_for("window.parleyClient.orbState === 'idle'", "the reply to end", timeout=60)
    await page.screenshot(output, "6-conversation")

    # After a reload, the thread is in the history and shown again.
    await page.send("Page.reload")
    await page.wait_for(f"!!document.querySelector('.thread-open[data-thread=\"{thread}\"]')", "the thread in the history")
    await page.wait_for(f"document.querySelector('.thread-open[data-thread=\"{thread}\"]').getAttribute('aria-current') === 'true'",
                        "the reloaded thread to be marked as the current one")
    await page.wait_for("document.querySelectorAll('.bubble.assistant').length >= 2", "the thread's messages after the reload")
    corrected = await page.eval("document.querySelector('.bubble.user .raw')?.textContent ?? ''")
    expect("heard" in corrected.lower(), "the corrected message does not show what was heard")
    print(f"ok: after a reload the history lists thread {thread} and the chat shows it ({corrected})")
    await page.screenshot(output, "7-history")

    # The stash keeps a reply; a spoken message takes a correction (PATCH, the raw kept).
    await page.eval("document.querySelector('.bubble.assistant .meta button').click()")
    await page.wait_for("document.querySelectorAll('#stash li').length === 1", "the reply in the stash")
    await page.eval("[...document.querySelectorAll('.bubble.user .meta button')].find((b) => b.textContent === 'Edit').click()")
    await page.wait_for("document.activeElement.closest('.edit-area') !== null", "the correction field to take the focus")
    await page.key("a", "KeyA", modifiers=2, key_code=65)
    await page.type(CORRECTED)
    await page.eval("document.querySelector('.edit-area button.primary').click()")
    await page.wait_for(f"document.querySelector('.bubble.user .text').textContent === {json.dumps(CORRECTED)}", "the correction to be saved")
    saved = api(base, key, f"/v1/threads/{thread}")["messages"][0]
    expect(saved["edited_text"] == CORRECTED and "france" in saved["raw_transcript"].lower(), f"after the correction: {saved}")
    print("ok: a reply kept in the stash; a later correction saved beside the raw transcript")

    # Settings: providers with health from /health.
    await page.eval("document.getElementById('settings-open').click()")
    await page.wait_for("document.querySelectorAll('#providers li').length > 0", "the providers in Settings")
    await page.screenshot(output, "8-settings")
    # Compare providers: every configured language model answers the question side by side.
    await page.eval("document.getElementById('compare-run').click()")
    row = await page.wait_for("(() => { const row = document.querySelector('#compare-results tr[data-outcome=\"answered\"]');"
                              " return row && [...row.children].map((cell) => cell.textContent); })()",
                              "the comparison of the language models", timeout=120)
    expect("paris" in row[-1].lower() and row[1].isdigit() and row[2].isdigit(), f"the comparison row is not an answer with its times: {row}")
    await page.eval("document.getElementById('compare-results').scrollIntoView()")
    await page.screenshot(output, "8-compare")
    print(f"ok: Compare providers lists each language model with its times and answer: {row}")
    await page.key("Escape", "Escape", key_code=27)
    await page.wait_for("!document.getElementById('settings').open", "Settings to close on Escape")
    print("ok: Settings lists the providers with their health; Escape closes it")

    # Settings are kept on the server for the key: saved here, read back after this device forgets them.
    await page.eval("document.getElementById('settings-open').click()")
    await page.wait_for("document.getElementById('settings').open", "Settings to open")
    for box in ("setting-large", "setting-dyslexia"):
        await page.eval(f"document.getElementById('{box}').focus()")
        await page.space()
    await page.eval("document.getElementById('settings-save').click()")
    await page.wait_for("document.documentElement.classList.contains('large-text')", "larger text after Save")
    deadline = time.monotonic() + 30
    while True:
        kept = api(base, key, "/v1/settings/preferences")
        if kept["saved"] and kept["preferences"]["large_text"] or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.3)
    expect(kept["saved"] and kept["preferences"]["large_text"] and kept["preferences"]["dyslexia_font"],
           f"the server did not keep the settings: {kept}")
    await page.eval("localStorage.removeItem('parley.prefs')")
    await page.send("Page.reload")
    await page.wait_for("document.documentElement?.classList.contains('large-text') && document.documentElement.classList.contains('dyslexia')",
                        "the settings from the server after this device forgot them")
    print("ok: settings saved on the server for the key (large text, dyslexia-friendly font) and restored from it after a reload")

    # A mind map of the conversation, drawn by the server, with the same map as a list.
    await page.wait_for("!document.getElementById('mindmap-open').disabled", "the mind map button for the open conversation")
    await page.eval("document.getElementById('mindmap-open').focus()")
    await page.enter()
    await page.wait_for("document.getElementById('mindmap').open", "the mind map dialog")
    await page.wait_for("!!document.querySelector('#mindmap-figure svg') || document.getElementById('mindmap-status').classList.contains('error-text')",
                        "the mind map", timeout=240)
    status = await page.eval("document.getElementById('mindmap-status').textContent")
    expect(await page.eval("!!document.querySelector('#mindmap-figure svg[role=img] title')"), f"no mind map drawn: {status}")
    labels = await page.eval("[...document.querySelectorAll('#mindmap-outline li')].length")
    drawn = await page.eval("[...document.querySelectorAll('#mindmap-figure svg text')].map((t) => t.textContent).join(' ')")
    expect(labels >= 3, f"the mind map's list has {labels} items")
    await page.eval("document.querySelector('#mindmap-outline-box summary').click()")
    await page.screenshot(output, "10-mindmap")
    await page.key("Escape", "Escape", key_code=27)
    await page.wait_for("!document.getElementById('mindmap').open && document.activeElement.id === 'mindmap-open'",
                        "the mind map to close on Escape, the focus back on its button")
    print(f"ok: mind map of the conversation: {status} ({labels} items; drawn: {drawn[:80]}…)")

    # A question about the person's notes: the server looks it up (a built-in tool) and the
    # chat shows what was looked up above the reply, live and in the saved thread.
    before = await page.eval("document.querySelectorAll('.bubble.assistant').length")
    await page.eval("document.getElementById('message').focus()")
    await page.type("What do my notes say about the field trip?")
    await page.enter()
    await page.wait_for(f"document.querySelectorAll('.bubble.assistant').length > {before}"
                        " && !!document.querySelector('.bubble.tool') && window.parleyClient.orbState === 'idle'",
                        "the looked-up reply", timeout=240)
    looked = await page.eval("document.querySelector('.bubble.tool summary').textContent")
    expect("search_materials" in looked, f"the tool entry reads “{looked}”")
    placed = await page.eval("document.querySelector('.bubble.tool').nextElementSibling?.classList.contains('assistant') === true")
    expect(placed, "the tool entry is not just above the reply")
    kept = api(base, key, f"/v1/threads/{thread}")["messages"]
    expect(any(m["role"] == "tool" and m.get("tool_name") == "search_materials" for m in kept), "the thread keeps no tool result")
    await page.screenshot(output, "11-tools")
    print(f"ok: a question about the notes was looked up ({looked}), shown above the reply and kept in the thread")

    expect(not page.console_errors, f"console errors: {page.console_errors}")
    print("ok: no console errors")


async def record_and_upload(base, key, question, output):
    async def body(page):
        await enter_key(page, base, key)
        await media_recorder_upload(page, key)
    await with_page(question, output, False, body)


def main():
    recorder_only = "--media-recorder" in sys.argv
    arguments = [argument for argument in sys.argv if argument != "--media-recorder"]
    if len(arguments) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    base, key, question, output = arguments[1].rstrip("/"), arguments[2], arguments[3], arguments[4]
    os.makedirs(output, exist_ok=True)
    try:
        asyncio.run(record_and_upload(base, key, question, output) if recorder_only else check(base, key, question, output))
    except CheckFailed as failure:
        print(f"FAILED: {failure}")
        return 1
    print("browser client: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
