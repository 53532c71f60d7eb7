#!/usr/bin/env python3
"""Drives Parley's browser client in a real, headless Firefox over Marionette, Firefox's own
remote protocol (no geckodriver needed).

    check_firefox.py BASE_URL API_KEY QUESTION_WAV OUTPUT_DIR

BASE_URL is a running `parley serve` (started with PARLEY_API_KEYS=API_KEY). Firefox's fake
microphone only plays a tone, so the page's getUserMedia is given, after Firefox's own fake
device has answered, a stream that plays QUESTION_WAV ("What is the capital of France?")
through Web Audio: from there on everything is the page's own path (AudioWorklet capture,
24 kHz PCM over /v1/realtime, review, playback). Checks, by keyboard where a person would use
it: the key prompt, the tab order (every control reached and named), talking with the space
bar, the partial and final transcripts, a corrected transcript being what the model received,
the reply and its audio being played, a typed question, the thread in the history after a
reload, the settings kept on the server, the mind map view, and no uncaught errors.
Screenshots go to OUTPUT_DIR with a `firefox-` prefix. Prints one "ok:" line per check; exits
1 with the reason on the first failure.

Needs Firefox (`firefox-esr`, or the binary named by FIREFOX).
"""

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from check_browser import CONTROLS, EDITED, TYPED, UNNAMED, CheckFailed, api, expect

# WebDriver key codes (the WebDriver specification's normalised keys).
TAB, ENTER, ESCAPE, CONTROL = "\ue004", "\ue007", "\ue00c", "\ue009"

PREFS = {
    "media.navigator.streams.fake": True,  # a fake microphone instead of the machine's
    "media.navigator.permission.disabled": True,  # no permission prompt
    "media.autoplay.default": 0,  # replies may play
    "media.autoplay.block-webaudio": False,
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.aboutwelcome.enabled": False,
}

# Installed before the page's own scripts use the microphone: Firefox's fake device answers
# first (so permission and device handling are Firefox's), then the question plays instead.
FAKE_MICROPHONE = """
const wav = arguments[0];
const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
window.__parleyQuestionPlays = 0;
navigator.mediaDevices.getUserMedia = async (constraints) => {
  const real = await original(constraints);
  real.getTracks().forEach((track) => track.stop());
  const context = new AudioContext();
  const bytes = Uint8Array.from(atob(wav), (c) => c.charCodeAt(0));
  const buffer = await context.decodeAudioData(bytes.buffer);
  const source = context.createBufferSource();
  source.buffer = buffer;
  const destination = context.createMediaStreamDestination();
  source.connect(destination);
  source.start();
  window.__parleyQuestionPlays += 1;
  return destination.stream;
};
"""

# Uncaught errors and console.error calls from here on, for the last check.
ERROR_TRAP = """
if (!window.__parleyErrors) {
  window.__parleyErrors = [];
  window.addEventListener('error', (event) => window.__parleyErrors.push(String(event.message)));
  window.addEventListener('unhandledrejection', (event) => window.__parleyErrors.push(String(event.reason)));
  const error = console.error.bind(console);
  console.error = (...args) => { window.__parleyErrors.push(args.map(String).join(' ')); error(...args); };
}
"""


class Marionette:
    """A Marionette client: length-prefixed JSON over TCP, one command at a time."""

    def __init__(self, port):
        deadline = time.monotonic() + 60
        while True:
            try:
                self.socket = socket.create_connection(("127.0.0.1", port), timeout=240)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise CheckFailed("Firefox's Marionette port never opened")
                time.sleep(0.3)
        self.buffer = b""
        self.next_id = 0
        hello = self.receive()
        expect(hello.get("marionetteProtocol") == 3, f"unexpected Marionette greeting: {hello}")

    def receive(self):
        while b":" not in self.buffer:
            self.fill()
        length, rest = self.buffer.split(b":", 1)
        size = int(length)
        self.buffer = rest
        while len(self.buffer) < size:
            self.fill()
        message, self.buffer = self.buffer[:size], self.buffer[size:]
        return json.loads(message)

    def fill(self):
        chunk = self.socket.recv(1 << 16)
        if not chunk:
            raise CheckFailed("Firefox closed the Marionette connection")
        self.buffer += chunk

    def command(self, name, parameters=None):
        self.next_id += 1
        body = json.dumps([0, self.next_id, name, parameters or {}]).encode()
        self.socket.sendall(str(len(body)).encode() + b":" + body)
        while True:
            reply = self.receive()
            if isinstance(reply, list) and reply[0] == 1 and reply[1] == self.next_id:
                break
        _, _, error, result = reply
        if error:
            raise CheckFailed(f"{name}: {error.get('error')}: {error.get('message')}")
        return result

    def run(self, script, *args):
        """The value of a function body (`return …`; awaits a returned promise)."""
        return self.command("WebDriver:ExecuteScript", {"script": script, "args": list(args)}).get("value")

    def wait_for(self, expression, what, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.run(f"try {{ return ({expression}); }} catch (e) {{ return null; }}")
            if value:
                return value
            time.sleep(0.1)
        raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}")

    def focus_window(self):
        """Gives the window the focus again: without it, key presses go nowhere (headless
        Firefox can lose it across a reload)."""
        handle = self.command("WebDriver:GetWindowHandle")["value"]
        self.command("WebDriver:SwitchToWindow", {"handle": handle, "focus": True})
        self.wait_for("document.hasFocus()", "the window to have the focus", timeout=10)

    def keys(self, *presses, modifier=None):
        """Presses each key in turn (holding `modifier` throughout, if given)."""
        actions = []
        if modifier:
            actions.append({"type": "keyDown", "value": modifier})
        for key in presses:
            actions += [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]
        if modifier:
            actions.append({"type": "keyUp", "value": modifier})
        self.command("WebDriver:PerformActions", {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})
        self.command("WebDriver:ReleaseActions")

    def type(self, text):
        self.keys(*text)

    def screenshot(self, directory, name):
        time.sleep(0.4)
        data = self.command("WebDriver:TakeScreenshot", {"full": False})["value"]
        path = os.path.join(directory, f"firefox-{name}.png")
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))
        print(f"screenshot: {path}")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def launch(profile):
    binary = os.environ.get("FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
    if not binary:
        raise CheckFailed("Firefox is not installed: scripts/setup installs Debian's firefox-esr")
    port = free_port()
    with open(os.path.join(profile, "user.js"), "w") as prefs:
        for name, value in dict(PREFS, **{"marionette.port": port}).items():
            prefs.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
    process = subprocess.Popen([binary, "--headless", "--marionette", "--no-remote", "--profile", profile],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, MOZ_HEADLESS="1"))
    return process, port


def put_preferences(base, key, preferences):
    request = urllib.request.Request(base + "/v1/settings/preferences", data=json.dumps(preferences).encode(), method="PUT",
                                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def drive(firefox, base, key, question, output):
    # The key's settings as another device left them: larger text, press to talk, review on.
    put_preferences(base, key, {"large_text": True})
    session = firefox.command("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})
    version = session.get("capabilities", {}).get("browserVersion", "?")
    firefox.command("WebDriver:SetWindowRect", {"width": 1280, "height": 900})
    with open(question, "rb") as file:
        wav = base64.b64encode(file.read()).decode()

    firefox.command("WebDriver:Navigate", {"url": base + "/"})
    firefox.run(ERROR_TRAP)
    firefox.run(FAKE_MICROPHONE, wav)
    firefox.wait_for("document.getElementById('key-dialog')?.open", "the API key dialog")
    expect(firefox.run("return document.activeElement.id") == "key-input", "the key field does not have the focus")
    firefox.type(key)
    firefox.keys(ENTER)
    firefox.wait_for("!document.getElementById('key-dialog').open && window.parleyClient.connected", "the key and the realtime connection")
    firefox.wait_for("document.documentElement.classList.contains('large-text')", "the settings kept on the server for the key")
    print(f"ok: Firefox {version}: the page asked for the API key, opened the realtime connection with it, and took the key's settings")

    controls = firefox.run(f"return {CONTROLS}")
    firefox.run("document.activeElement.blur()")
    reached = set()
    for _ in range(len(controls) + 10):
        firefox.keys(TAB)
        focused = firefox.run("return document.activeElement.dataset.check ?? null")
        if focused is not None:
            reached.add(int(focused))
    missing = [controls[index] for index in range(len(controls)) if index not in reached]
    expect(not missing, f"the tab order never reaches: {missing}")
    unnamed = firefox.run(f"return {UNNAMED}")
    expect(not unnamed, f"controls without an accessible name: {unnamed}")
    print(f"ok: keyboard: Tab reaches all {len(controls)} controls, each has an accessible name")
    firefox.screenshot(output, "1-ready")

    # A spoken turn with the space bar: tap to start, tap to stop.
    firefox.run("document.activeElement.blur()")
    firefox.keys(" ")
    firefox.wait_for("window.parleyClient.capture === 'toggle'", "the space bar to start listening")
    firefox.wait_for("window.__parleyQuestionPlays === 1 && window.parleyClient.audio?.microphone", "the microphone (AudioWorklet) to open")
    firefox.wait_for("window.parleyClient.orbState === 'listening'", "speech to be detected", timeout=30)
    firefox.screenshot(output, "2-listening")
    partial = firefox.wait_for(
        "(() => { const live = document.getElementById('live-transcript'); const t = live.textContent.trim(); return !live.hidden && t && t !== '…' && t; })()",
        "a partial transcript", timeout=60)
    print(f"ok: the space bar started listening; partial transcript while speaking: “{partial}”")
    time.sleep(3.5)
    firefox.keys(" ")
    heard = firefox.wait_for("!document.getElementById('review').hidden && document.getElementById('review-text').value",
                             "the final transcript in the review", timeout=120)
    expect("capital" in heard.lower() and "france" in heard.lower(), f"the final transcript is “{heard}”")
    expect(firefox.run("return document.activeElement.id") == "review-text", "the review does not have the focus")
    print(f"ok: final transcript in the review: “{heard}”")
    firefox.screenshot(output, "3-review")

    # Correct it (select all, type) and send it with Ctrl+Enter.
    firefox.keys("a", modifier=CONTROL)
    firefox.type(EDITED)
    firefox.keys(ENTER, modifier=CONTROL)
    reply = firefox.wait_for(
        "(() => { const b = [...document.querySelectorAll('.bubble.assistant')]; const last = b[b.length - 1];"
        " return last && last.querySelector('.facts') && last.querySelector('.text').textContent; })()",
        "the reply to finish", timeout=180)
    expect("paris" in reply.lower(), f"the reply is “{reply}”")
    firefox.wait_for("window.parleyClient.orbState === 'idle'", "playback to end", timeout=60)
    stats = firefox.run("return window.parleyClient.stats")
    expect(stats["chunksPlayed"] > 0 and stats["secondsPlayed"] > 0.3, f"no reply audio was played: {stats}")
    expect(stats["chunksSent"] > 20, f"too little microphone audio was sent: {stats}")
    print(f"ok: the reply “{reply}”, its audio played ({stats['secondsPlayed']:.1f} s)")
    thread = firefox.run("return window.parleyClient.thread")
    first = api(base, key, f"/v1/threads/{thread}")["messages"][0]
    expect(first["text"] == EDITED and "france" in (first["raw_transcript"] or "").lower(), f"saved: {first}")
    print(f"ok: saved: the model received the correction; the raw transcript “{first['raw_transcript']}” is kept")

    # A typed turn.
    firefox.run("document.getElementById('message').focus()")
    firefox.type(TYPED)
    firefox.keys(ENTER)
    typed = firefox.wait_for(
        "(() => { const b = [...document.querySelectorAll('.bubble.assistant')];"
        " return b.length >= 2 && b[1].querySelector('.facts') && b[1].querySelector('.text').textContent; })()",
        "the typed question's reply", timeout=180)
    expect("paris" in typed.lower(), f"the typed question's reply is “{typed}”")
    print(f"ok: typed question answered: “{typed}”")
    firefox.wait_for("window.parleyClient.orbState === 'idle'", "the reply to end", timeout=60)
    firefox.screenshot(output, "4-conversation")
    errors = firefox.run("return window.__parleyErrors")
    expect(not errors, f"errors on the page: {errors}")

    # Settings from the server (saved by the Chromium check with the same key, or saved here).
    firefox.run("document.getElementById('settings-open').click()")
    firefox.wait_for("document.querySelectorAll('#providers li').length > 0", "the providers in Settings")
    firefox.keys(ESCAPE)
    firefox.wait_for("!document.getElementById('settings').open", "Settings to close on Escape")
    firefox.command("WebDriver:Refresh")
    firefox.focus_window()
    firefox.run(ERROR_TRAP)
    firefox.wait_for(f"!!document.querySelector('.thread-open[data-thread=\"{thread}\"]')", "the thread in the history after a reload")
    firefox.wait_for("document.querySelectorAll('.bubble.assistant').length >= 2", "the thread's messages after the reload")
    print(f"ok: after a reload the history lists thread {thread}")

    # The mind map of the conversation.
    firefox.wait_for("!document.getElementById('mindmap-open').disabled", "the mind map button")
    firefox.run("document.getElementById('mindmap-open').focus()")
    firefox.keys(ENTER)
    firefox.wait_for("!!document.querySelector('#mindmap-figure svg') || document.getElementById('mindmap-status').classList.contains('error-text')",
                     "the mind map", timeout=240)
    status = firefox.run("return document.getElementById('mindmap-status').textContent")
    expect(firefox.run("return !!document.querySelector('#mindmap-figure svg title')"), f"no mind map drawn: {status}")
    firefox.screenshot(output, "5-mindmap")
    firefox.keys(ESCAPE)
    firefox.wait_for("!document.getElementById('mindmap').open && document.activeElement.id === 'mindmap-open'",
                     "the mind map to close on Escape, the focus back on its button")
    print(f"ok: mind map: {status}")
    errors = firefox.run("return window.__parleyErrors")
    expect(not errors, f"errors on the page: {errors}")
    print("ok: no uncaught errors or console errors")


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    base, key, question, output = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
    os.makedirs(output, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="parley-firefox-")
    process = None
    try:
        process, port = launch(profile)
        firefox = Marionette(port)
        try:
            drive(firefox, base, key, question, output)
        except CheckFailed:
            try:
                firefox.screenshot(output, "failure")
                print("page state:", firefox.run(
                    "return JSON.stringify({url: location.href, orb: window.parleyClient?.orbState, stats: window.parleyClient?.stats,"
                    " audio: window.parleyClient?.audio, status: document.getElementById('orb-status')?.textContent,"
                    " alerts: document.getElementById('alerts')?.textContent, errors: window.__parleyErrors, display: document.documentElement.className,"
                    " focused: document.activeElement?.id, dialogs: [...document.querySelectorAll('dialog[open]')].map((d) => d.id),"
                    " mindmap: document.getElementById('mindmap-status')?.textContent})"))
            except CheckFailed as error:
                print(f"page state unavailable: {error}")
            raise
    except CheckFailed as failure:
        print(f"FAILED: {failure}")
        return 1
    finally:
        if process:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(profile, ignore_errors=True)
    print("browser client in Firefox: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
