#!/usr/bin/env python3
"""A web page from another origin, and one reached through DNS rebinding, try to use a
running `parley serve` in a real headless Chromium, and must fail.

    check_foreign_origin.py BASE_URL

BASE_URL is a `parley serve` on 127.0.0.1 without keys (the default, and the case that
matters: nothing but the origin and host rules stands between a page and the user's data).

1. A page served from another port (another origin) runs `fetch(BASE/v1/threads)`,
   `fetch(BASE/v1/threads, {method: "POST"})` as a form would, and `new WebSocket(BASE/v1/realtime)`:
   each must fail (no readable answer, no open socket).
2. Chromium resolves `rebind.test` to 127.0.0.1 (as a rebinding attack makes it) and opens
   `http://rebind.test:PORT/`: the server must refuse its own page under that name, and the
   page's `fetch("/v1/threads")` must not read the threads.
3. The control: `/v1/threads` answers a client without `Origin` and one with the server's own
   (the page itself is driven in Chromium by scripts/check_browser.py).

Prints one "ok:" line per check; exits 1 with the reason on the first failure.
"""

import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import urllib.parse
import urllib.request

PROBE = """<!doctype html><meta charset="utf-8"><title>probe</title><pre id="out">running</pre>
<script>
const base = %(base)s;
const results = {};
async function run() {
  try {
    const r = await fetch(base + "/v1/threads");
    results.get = "read " + r.status + " " + (await r.text()).slice(0, 80);
  } catch (e) { results.get = "failed"; }
  try {
    const r = await fetch(base + "/v1/threads", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: "{}"});
    results.post = "sent (opaque: " + r.type + ")";
  } catch (e) { results.post = "failed"; }
  results.ws = await new Promise(resolve => {
    let socket;
    try { socket = new WebSocket(base.replace("http", "ws") + "/v1/realtime"); } catch (e) { resolve("failed"); return; }
    socket.onopen = () => { resolve("open"); socket.close(); };
    socket.onerror = () => resolve("failed");
    setTimeout(() => resolve("timeout"), 4000);
  });
  document.getElementById("out").textContent = "RESULT " + JSON.stringify(results);
}
run();
</script>"""


def chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise SystemExit("error: Chromium is not installed: run scripts/setup")


def dump(url, extra=()):
    """The page's DOM once its scripts have run (virtual time lets the fetches finish)."""
    command = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000",
               "--user-data-dir=" + os.environ.get("TMPDIR", "/tmp") + "/parley-origin-check-%d" % os.getpid(),
               *extra, "--dump-dom", url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=90)
    return done.stdout


def result(dom):
    start = dom.find("RESULT ")
    if start < 0:
        raise SystemExit("error: the probe page did not finish: " + dom[-400:])
    text = dom[start + len("RESULT "):]
    return json.loads(text[:text.index("}") + 1].replace("&quot;", '"').replace("&amp;", "&"))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    base = sys.argv[1].rstrip("/")
    port = urllib.parse.urlparse(base).port

    # 1. A page on another origin (another port of this machine).
    page = PROBE % {"base": json.dumps(base)}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    def threads():
        with urllib.request.urlopen(base + "/v1/threads", timeout=30) as answer:
            return len(json.load(answer)["data"])

    def sessions():
        """Realtime sessions the server has opened (its own count, whatever the page saw)."""
        with urllib.request.urlopen(base + "/metrics", timeout=30) as answer:
            for line in answer.read().decode().splitlines():
                if line.startswith("parley_realtime_sessions_total"):
                    return float(line.split()[-1])
        return 0.0

    before = threads()
    opened = sessions()
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        found = result(dump("http://127.0.0.1:%d/" % other.server_address[1]))
    finally:
        other.shutdown()
    # A GET's answer is hidden from the page by CORS whatever the server does; a WebSocket and a
    # form post are not: only the server's own rules stop them.
    if found["get"] != "failed":
        raise SystemExit("error: a page on another origin read /v1/threads: %s" % found["get"])
    # The page's own view can time out first (virtual time runs ahead of the network), so the
    # server's count decides.
    if found["ws"] == "open" or sessions() != opened:
        raise SystemExit("error: a page on another origin opened a realtime WebSocket (%s)" % found["ws"])
    if threads() != before:
        raise SystemExit("error: a page on another origin created a thread with a cross-site form post")
    print("ok: a page on another origin cannot open /v1/realtime (%s), create a thread with a form post (still %d), "
          "nor read /v1/threads (%s)" % (found["ws"], before, found["get"]))

    # 2. DNS rebinding: the attacker's name now resolves to this machine.
    rules = "--host-resolver-rules=MAP rebind.test 127.0.0.1"
    dom = dump("http://rebind.test:%d/" % port, [rules])
    if "Parley" in dom and "host_not_allowed" not in dom:
        raise SystemExit("error: the server served its page to the name rebind.test: " + dom[:300])
    print("ok: under a rebinding name (rebind.test → 127.0.0.1) the server refuses its page (host_not_allowed)")

    # 3. The control (the page itself is driven in Chromium by scripts/check_browser.py).
    for origin in (None, base):
        request = urllib.request.Request(base + "/v1/threads", headers={"Origin": origin} if origin else {})
        with urllib.request.urlopen(request, timeout=30) as answer:
            if answer.status != 200:
                raise SystemExit("error: /v1/threads with Origin %s answered %d" % (origin, answer.status))
    print("ok: the server's own origin, and a client without Origin, read /v1/threads")


if __name__ == "__main__":
    main()
