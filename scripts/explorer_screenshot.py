"""Renders a Model Explorer graph JSON (``--report-model-explorer``) in Model Explorer's own web
app, in headless Chromium, and saves a screenshot: a check, in a real browser, that the file
loads and draws (the tests check the JSON against Model Explorer's classes without a browser).

    python scripts/explorer_screenshot.py graph.json shot.png [--port 8091] [--wait 60]

Needs ``ai-edge-model-explorer`` (requirements-dev.txt) and ``chromium`` (``apt-get install
chromium``). Chromium's ``--screenshot`` flag with a virtual time budget shows the app before
its fetches finish (the model then reads "Error"), so the page is driven through the DevTools
protocol instead: wait until the graph's node count appears, expand every layer, capture.
The protocol's websocket is spoken over a plain socket to need no extra package.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path


class DevTools:
    """One page of a Chromium started with ``--remote-debugging-port``: send a command, get its
    result (events are read and dropped)."""

    def __init__(self, port: int) -> None:
        pages = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json").read())
        url = next(p for p in pages if p.get("type") == "page")["webSocketDebuggerUrl"]
        host_port, path = url.removeprefix("ws://").split("/", 1)
        host, port_text = host_port.split(":")
        self.sock = socket.create_connection((host, int(port_text)), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        reply = b""
        while b"\r\n\r\n" not in reply:
            reply += self.sock.recv(4096)
        self.pending = reply.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0

    def _read(self, count: int) -> bytes:
        while len(self.pending) < count:
            self.pending += self.sock.recv(65536)
        out, self.pending = self.pending[:count], self.pending[count:]
        return out

    def _receive(self) -> dict:
        message = b""
        while True:
            first, second = self._read(2)
            size = second & 0x7F
            if size == 126:
                size = struct.unpack(">H", self._read(2))[0]
            elif size == 127:
                size = struct.unpack(">Q", self._read(8))[0]
            message += self._read(size)
            if first & 0x80:  # the final fragment
                return json.loads(message)

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        data = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        size = len(data)
        header = bytes([0x81]) + (bytes([0x80 | size]) if size < 126 else
                                  bytes([0x80 | 126]) + struct.pack(">H", size))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        while True:
            reply = self._receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        return result["result"].get("value")


EXPAND_ALL = """(async () => {
  const icon = [...document.querySelectorAll('mat-icon')].find(i => i.textContent.trim() === 'unfold_more_double');
  if (icon) (icon.closest('button') || icon).click();
  await new Promise(r => setTimeout(r, 2000));
  document.querySelectorAll('.mat-mdc-tooltip, mat-tooltip-component').forEach(t => t.remove());
  return Boolean(icon);
})()"""


def screenshot(graph: Path, out: Path, port: int, wait: float) -> str:
    """Serves ``graph`` with Model Explorer, renders it in headless Chromium, writes ``out``;
    returns the graph's node-count label as the page shows it."""
    data = urllib.parse.quote(json.dumps({"models": [{"url": str(graph.resolve())}]}))
    server = subprocess.Popen([sys.executable, "-m", "model_explorer", str(graph), "--no_open_in_browser",
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="explorer-chromium-")
    debug_port = port + 1
    browser = None
    try:
        deadline = time.time() + wait
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/check_health", timeout=2)
                break
            except OSError:
                time.sleep(1)
        browser = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                    f"--user-data-dir={profile}", f"--remote-debugging-port={debug_port}",
                                    "--window-size=1400,900", f"http://127.0.0.1:{port}/?data={data}"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        label = None
        while time.time() < deadline and label is None:
            time.sleep(2)
            try:
                tools = DevTools(debug_port)
            except OSError:
                continue
            text = tools.evaluate("document.body.innerText") or ""
            # The home page's model list ("Model name  Status  Adapter  Delete") marks a file it
            # could not read with the status "Error".
            if "Error" in text.split("Delete")[-1][:200]:
                raise RuntimeError("Model Explorer reports an error loading the graph")
            label = next((line for line in text.splitlines() if line.endswith(" nodes")), None)
        if label is None:
            raise RuntimeError(f"the graph did not appear within {wait:.0f} s")
        tools.evaluate(EXPAND_ALL)
        out.write_bytes(base64.b64decode(tools.call("Page.captureScreenshot", format="png")["data"]))
        return label
    finally:
        for process in (browser, server):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graph", type=Path, help="a Model Explorer graph JSON (--report-model-explorer)")
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--port", type=int, default=8091, help="Model Explorer's port (Chromium's: port + 1)")
    parser.add_argument("--wait", type=float, default=90.0, help="seconds to wait for the graph")
    args = parser.parse_args()
    try:
        label = screenshot(args.graph, args.out, args.port, args.wait)
    except RuntimeError as error:
        sys.exit(f"error: {args.graph}: {error}")
    print(f"Model Explorer drew {label}; wrote {args.out}")


if __name__ == "__main__":
    main()
