"""Headless Chromium driven over the DevTools protocol on a pipe
(`--remote-debugging-pipe`: JSON messages ended by NUL, the browser reading
fd 3 and writing fd 4), so the browser tests need nothing but the browser."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find() -> str | None:
    override = os.environ.get("TOPOCONF_CHROMIUM")
    if override:
        # A browser named explicitly and missing is missing: no other one is tried.
        return shutil.which(override)
    return next((path for path in map(shutil.which, NAMES) if path), None)


class Browser:
    def __init__(self, executable: str, width: int = 1280, height: int = 900):
        self._profile = tempfile.TemporaryDirectory(prefix="topoconf-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def plumb() -> None:
            # Copies first: a pipe may itself be fd 3 or 4, and dup2 onto itself
            # would leave it close-on-exec.
            reading, writing = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(reading, 3)
            os.dup2(writing, 4)
            os.close(reading)
            os.close(writing)

        self.process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--remote-debugging-pipe",
             f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            # dup2 leaves fds 3 and 4 open across exec; every other descriptor
            # of ours is close-on-exec already.
            preexec_fn=plumb, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._reader = os.fdopen(self._from_browser, "rb", buffering=0)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = self._reader.read(1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str) -> dict[str, Any]:
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def open(self, path: Path | str, fragment: str = "") -> None:
        """A file (or a URL given as a string), optionally at a fragment."""
        self.events.clear()
        url = path if isinstance(path, str) else path.resolve().as_uri()
        url += f"#{fragment}" if fragment else ""
        answer = self.call("Page.navigate", session=True, url=url)
        # A fragment within the page already shown loads nothing (no loaderId).
        if answer.get("loaderId"):
            self.wait_for("Page.loadEventFired")
        else:
            # The page scrolls on hashchange: let two frames pass.
            self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def evaluate(self, expression: str) -> Any:
        answer = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression[:80]}...: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size[0], "height": min(size[1], 6000), "scale": 1})
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def console(self) -> list[str]:
        """What the page logged, CSP refusals included."""
        lines = []
        for event in self.events:
            if event.get("method") == "Log.entryAdded":
                lines.append(event["params"]["entry"].get("text", ""))
            elif event.get("method") == "Runtime.consoleAPICalled":
                lines.append(" ".join(str(a.get("value")) for a in event["params"].get("args", [])))
        return lines

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.close()
        os.close(self._to_browser)
        self._profile.cleanup()
