"""Interpreters that the unprivileged user ``nobody`` can or cannot read, for tests run as root.

Run as root outside namespaces, the grader hands student code to ``nobody`` and refuses to
grade where that user cannot read Python and its packages. These helpers build both cases
from the interpreter running the tests, in a world-readable folder the caller removes.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"


def nobody_can_read(path: Path | str) -> bool:
    """Whether user nobody can open ``path`` (a forked copy of this process switches to it)."""
    nobody = pwd.getpwnam("nobody")
    pid = os.fork()
    if pid == 0:  # the copy: become nobody, try, report by exit status only
        code = 2
        try:
            os.setgroups([])
            os.setresgid(nobody.pw_gid, nobody.pw_gid, nobody.pw_gid)
            os.setresuid(nobody.pw_uid, nobody.pw_uid, nobody.pw_uid)
            if os.path.isdir(path):
                os.listdir(path)
            else:
                with open(path, "rb") as fh:
                    fh.read(1)
            code = 0
        except OSError:
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _stdlib(python: str) -> str:
    return subprocess.run([python, "-I", "-c", "import os; print(os.__file__)"], capture_output=True,
                          text=True, check=False).stdout.strip()


def _packages() -> list[str]:
    """The folders this interpreter finds numpy and torch in (and the rest of its site-packages)."""
    return list(dict.fromkeys(p for p in sys.path if p.endswith(("site-packages", "dist-packages"))
                              and os.path.isdir(p)))


def _venv(python: str, where: Path, packages: list[str]) -> str:
    subprocess.run([python, "-m", "venv", "--without-pip", str(where)], check=True, capture_output=True)
    [site] = list((where / "lib").glob("python*/site-packages"))
    (site / "course.pth").write_text("\n".join(packages) + "\n", encoding="utf-8")
    return str(where / "bin" / "python")


def public_python(base: Path) -> str | None:
    """An interpreter every user can read, as a system Python is: this one, or a venv (made in
    ``base``) over a system Python of the same version that sees this one's packages. None
    when there is none, or when nobody cannot read the packages either."""
    if not all(nobody_can_read(p) for p in _packages()):
        return None
    candidates = [sys.executable, getattr(sys, "_base_executable", sys.executable),
                  shutil.which(f"python{VERSION}") or "", f"/usr/bin/python{VERSION}"]
    for python in dict.fromkeys(c for c in candidates if c and Path(c).exists()):
        stdlib = _stdlib(python)
        if not stdlib or not nobody_can_read(stdlib):
            continue
        if python == sys.executable:
            return python
        return _venv(python, base / "public-python", _packages())
    return None


def private_python(base: Path) -> str:
    """An interpreter with torch and numpy whose own files nobody cannot read: this one when its
    standard library is private already (a Python under a root-only home), else a venv inside a
    root-only folder of ``base`` holding its own copy of numpy."""
    if not nobody_can_read(_stdlib(sys.executable)):
        return sys.executable
    private = base / "private"
    private.mkdir(mode=0o700)
    python = _venv(sys.executable, private / "venv", _packages())
    import numpy

    [site] = list((private / "venv" / "lib").glob("python*/site-packages"))
    shutil.copytree(Path(numpy.__file__).parent, site / "numpy")  # found before the shared one
    return python
