"""Drive a headless chromium over its DevTools pipe (``--remote-debugging-pipe``), stdlib only.

``--screenshot`` takes its picture when the page has loaded, which can be before the page's own
fonts are ready; here the picture waits for ``document.fonts.ready`` and says how each font
face of the page fared.

Example::

    faces, png = screenshot(["chromium"], page.as_uri(), width=1200, height=3200, profile=tmp)
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path
from typing import Any

#: the page's font faces once they are settled, after the load event: "family:status,…"
_FONTS_SETTLED = """new Promise(done => {
  const go = () => document.fonts.ready.then(() =>
    done([...document.fonts].map(f => f.family.replace(/"/g, "") + ":" + f.status).join(",")));
  if (document.readyState === "complete") go(); else addEventListener("load", go);
})"""


class _Pipe:
    """One chromium and its DevTools pipe: requests on fd 3, answers on fd 4, each ended by NUL."""

    def __init__(self, argv: list[str]) -> None:
        to_chromium, self._w = os.pipe()
        self._r, from_chromium = os.pipe()

        def fds() -> None:
            os.dup2(to_chromium, 3)
            os.dup2(from_chromium, 4)

        self.proc = subprocess.Popen([*argv, "--remote-debugging-pipe"], pass_fds=(3, 4), preexec_fn=fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chromium)
        os.close(from_chromium)
        self._buf, self._n = b"", 0

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        self._n += 1
        message: dict[str, Any] = {"id": self._n, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._w, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"chromium ended during {method}")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._n:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)


def screenshot(prefix: list[str], url: str, *, width: int, height: int, profile: Path) -> tuple[str, bytes]:
    """``(font faces with their status, PNG)`` of ``url`` once its fonts are settled.

    ``prefix`` is the command up to chromium itself (``["bwrap", …, "chromium"]``).
    """
    pipe = _Pipe([*prefix, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  f"--user-data-dir={profile}", "about:blank"])
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        pipe.call("Page.enable", session=session)
        pipe.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        pipe.call("Page.navigate", {"url": url}, session=session)
        faces = pipe.call("Runtime.evaluate", {"expression": _FONTS_SETTLED, "awaitPromise": True,
                                               "returnByValue": True}, session=session)["result"]["value"]
        png = pipe.call("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
        return str(faces), base64.b64decode(png)
    finally:
        pipe.close()


def evaluate(prefix: list[str], url: str, expression: str, *, width: int, height: int, profile: Path) -> Any:
    """The value of ``expression`` (JavaScript, may return a promise) on ``url`` laid out at
    ``width`` x ``height``, once the page's fonts are settled (so widths are the final ones)."""
    pipe = _Pipe([*prefix, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  f"--user-data-dir={profile}", "about:blank"])
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        pipe.call("Page.enable", session=session)
        pipe.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        pipe.call("Page.navigate", {"url": url}, session=session)
        pipe.call("Runtime.evaluate", {"expression": _FONTS_SETTLED, "awaitPromise": True, "returnByValue": True},
                  session=session)
        answer = pipe.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, session=session)
        if "exceptionDetails" in answer:
            raise RuntimeError(str(answer["exceptionDetails"])[:2000])
        return answer["result"].get("value")
    finally:
        pipe.close()
