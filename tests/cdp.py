"""cdp.py -- a headless Chromium driven over the DevTools protocol, with
the Python standard library only (a minimal WebSocket client: RFC 6455
client frames, masked, text messages, fragmentation).  Used by
test_replay_browser.py.

    with Browser() as b:
        b.open("file:///tmp/game.html")
        b.eval("1 + 1")          # -> 2
        b.key("End")
        b.screenshot("shot.png")
        b.errors                 # JavaScript exceptions and console errors
"""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync",
         "--remote-debugging-port=0", "--hide-scrollbars",
         "--force-device-scale-factor=1"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class WebSocket:
    def __init__(self, url, timeout=30):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n"
                           % (path, host, port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise IOError("websocket handshake: connection closed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise IOError("websocket handshake refused: %r" % head[:200])

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise IOError("websocket closed")
            buf += chunk
        return buf

    def send(self, text):
        data = text.encode()
        head = bytearray([0x81])
        if len(data) < 126:
            head.append(0x80 | len(data))
        elif len(data) < 1 << 16:
            head.append(0x80 | 126)
            head += struct.pack(">H", len(data))
        else:
            head.append(0x80 | 127)
            head += struct.pack(">Q", len(data))
        mask = os.urandom(4)
        head += mask
        self.sock.sendall(bytes(head) + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            op = b0 & 0x0F
            if op == 8:
                raise IOError("websocket closed by the browser")
            if op in (9, 10):  # ping / pong: not used by DevTools
                continue
            message += data
            if b0 & 0x80:
                return message.decode()


class Browser:
    def __init__(self, width=1280, height=900):
        self.width, self.height = width, height
        self.errors = []
        self.next_id = 0
        self.events = []

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="maat-chromium-")
        self.proc = subprocess.Popen(
            [find_chromium()] + FLAGS + ["--user-data-dir=" + self.dir,
                                         "--window-size=%d,%d" % (self.width, self.height),
                                         "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True)
        url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline().decode(errors="replace")
            if not line:
                break
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                url = m.group(1)
                break
        if not url:
            self.__exit__(None, None, None)
            raise RuntimeError("chromium did not start its DevTools endpoint")
        self.ws = WebSocket(url)
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True,
                  width=self.width, height=self.height, deviceScaleFactor=1,
                  mobile=False)
        return self

    def __exit__(self, *exc):
        try:
            self.ws.sock.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
        self.proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _event(self, msg):
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails", {})
            text = d.get("exception", {}).get("description") or d.get("text")
            self.errors.append("exception: %s (line %s)" % (text, d.get("lineNumber")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console.%s: %s" % (params["type"], " ".join(
                str(a.get("value", a.get("description"))) for a in params.get("args", []))))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", ""))
        self.events.append(method)

    def call(self, method, session=False, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self._event(reply)

    def wait_event(self, method, timeout=30):
        self.ws.sock.settimeout(timeout)
        while method not in self.events:
            self._event(json.loads(self.ws.recv()))
        self.events.remove(method)

    def open(self, url):
        self.events = []
        self.call("Page.navigate", session=True, url=url)
        self.wait_event("Page.loadEventFired")

    def eval(self, expr):
        r = self.call("Runtime.evaluate", session=True, expression=expr,
                      returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            self.errors.append("evaluate %r: %s" % (expr[:60], d.get("exception", {}).get(
                "description") or d.get("text")))
            return None
        return r.get("result", {}).get("value")

    def key(self, key, code=None, vk=0):
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=key,
                      code=code or key, windowsVirtualKeyCode=vk)

    def screenshot(self, path, full_page=True):
        if full_page:
            h = self.eval("Math.ceil(document.documentElement.scrollHeight)") or self.height
            self.call("Emulation.setDeviceMetricsOverride", session=True,
                      width=self.width, height=int(h), deviceScaleFactor=1, mobile=False)
        shot = self.call("Page.captureScreenshot", session=True, format="png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        if full_page:
            self.call("Emulation.setDeviceMetricsOverride", session=True,
                      width=self.width, height=self.height, deviceScaleFactor=1, mobile=False)
