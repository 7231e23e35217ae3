"""The untrusted side: a warm process that forks one child per submission.

This file runs INSIDE the sandbox, loaded as a plain script beside ``wire.py`` (it never
imports the ``grader`` package, which is not visible there). It holds no secret: no rubric,
no suite, no reference. It imports torch once, then for every submission:

1. reads ``{"op": "open", ...}`` from the control pipe and forks a child;
2. the child applies the limits, writes the submission's files into the scratch folder,
   imports them, and answers ``call`` requests on the call pipes until ``end``;
3. when the child is gone the zygote kills everything the child left behind, empties the
   request pipe, the scratch folder (and, in namespaces, ``/dev/shm`` and System V IPC),
   checks nothing is left, and reports ``closed`` (with ``clean``) on the control pipe.

Where no seccomp filter keeps the child from starting processes, the zygote watches for
them and kills the child when one appears. Where there is no ``fork`` (Windows), the zygote
serves one submission in its own process and then exits; the trusted side starts another.

The ``subprocess`` level (``"spawned"`` in the config) is that last case on purpose, on any
platform: the process is started fresh for one submission, its frames travel on the stdin
and stdout it was given (kept as private copies; fd 0 becomes the null device and fd 1 goes
to stderr, so nothing the student prints can corrupt a frame), and the trusted side ends it
with a kill. It needs no fork, no inherited pipes, no select on pipes, no /proc and no rlimits.

As PID 1 of its own PID namespace (bubblewrap ``--as-pid-1``) the zygote cannot be signalled
by the processes it forks, and ``kill(-1, SIGKILL)`` reaches every one of them. It is also
marked non-dumpable, so its children cannot ptrace it or read its memory.

Pipes (their numbers arrive in the JSON config, ``argv[1]``): ``req`` (trusted → child),
``resp`` (child → trusted), ``ctl_in`` (trusted → zygote), ``ctl_out`` (zygote → trusted).

Sections: the child (loading the files, the limits, answering calls, describing errors; the
unprivileged user it becomes); the zygote (sweeping and wiping after a child, watching it,
warming torch up, serving the control pipe).
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import math
import os
import select
import signal
import stat
import sys
import traceback
import types
from typing import TYPE_CHECKING, cast

try:
    import resource
except ImportError:  # Windows: no rlimits
    resource = None  # type: ignore[assignment]  # (tested as None below)

_HERE = os.path.dirname(os.path.abspath(__file__))
# wire.py and seccomp_noproc.py sit beside this file, inside the sandbox as in the source tree.
# (-I keeps the script's folder off sys.path.)
sys.path.insert(0, _HERE)
if TYPE_CHECKING:  # mypy reads the two as modules of the package: the same files
    from grader.sandbox import seccomp_noproc, wire
    from grader.sandbox.wire import Frame, OpenRequest, ZygoteConfig
else:
    import wire  # noqa: E402

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
MAX_MESSAGE = 2000


def _prctl(option: int, value: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: nothing to set
        pass


def _vmsize_kb() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# --------------------------------------------------------------------------- the child


def _display(*objs: object, **kwargs: object) -> None:
    """Jupyter's ``display()``, which a notebook's cells may call as a built-in: here nothing is
    shown (the notebook runs for its functions, not its output)."""


class _Child:
    """Loads one submission and serves calls; runs only in the forked child."""

    def __init__(self, cfg: ZygoteConfig, msg: OpenRequest) -> None:
        self.cfg = cfg
        self.req, self.resp = cfg["req"], cfg["resp"]
        self.kind = msg["kind"]
        self.modules_spec = msg["modules"]
        self.limits = msg.get("limits", {})
        self.workdir = os.path.join(cfg["scratch"], "submission")
        self.namespaces: dict[str, types.ModuleType] = {}
        self.skip = set(msg.get("skip") or [])
        self.max_reply = int(self.limits.get("reply_mb") or 64) * 1024 * 1024
        self.labels: dict[str, str] = {}  # code filename -> what the student sees

    # -- set-up --------------------------------------------------------------------------
    def apply_limits(self) -> dict[str, int | str]:
        """Set the rlimits and the process filter; returns what is actually in force."""
        lim = self.limits
        mb = 1024 * 1024
        in_force: dict[str, int | str] = {}

        def cap(name: str, which: str, soft: int, hard: int | None = None) -> None:
            if resource is None:
                in_force[name] = "not enforced: this platform has no rlimits"
                return
            try:
                limit: int = getattr(resource, which)
                resource.setrlimit(limit, (soft, soft if hard is None else hard))
                in_force[name] = soft
            except (ValueError, OSError) as exc:
                in_force[name] = f"not set: {exc}"

        if lim.get("memory_mb"):
            cap("address_space_bytes", "RLIMIT_AS",
                self.cfg["vmsize_kb"] * 1024 + int(lim["memory_mb"]) * mb)
        if lim.get("cpu_s"):
            # A spawned process has already spent CPU importing torch: that is not the student's.
            soft = max(1, int(math.ceil(float(lim["cpu_s"]) + float(self.cfg.get("cpu_spent_s", 0)))))
            cap("cpu_s", "RLIMIT_CPU", soft, soft + 1)
        if lim.get("file_size_mb"):
            cap("file_size_bytes", "RLIMIT_FSIZE", int(lim["file_size_mb"]) * mb)
        cap("core_bytes", "RLIMIT_CORE", 0)
        cap("open_files", "RLIMIT_NOFILE", int(lim.get("open_files", 256)))
        if not self.cfg.get("pid1") and hasattr(os, "geteuid") and os.geteuid() == 0:
            # Root's files (the reference, the hidden suites, the rubric, results) are closed
            # to an ordinary user; dropping capabilities alone would still leave the owner's
            # rights. So student code runs as the unprivileged user the zygote chose (first:
            # switching users needs the capability that is dropped next). Where that user
            # cannot be had, no student code runs at all: _become raises.
            in_force["user"] = _become(self.cfg.get("run_as"))
            in_force["capabilities"] = _drop_capabilities()
        processes = int(lim.get("processes") or 0)
        if self.cfg.get("spawned"):
            in_force["processes"] = (
                f"{processes or 'any'} (not counted at the subprocess level; "
                + ("the process group is killed when the submission ends)" if os.name == "posix"
                   else "processes the submission starts are not killed with it)")
            )
        elif processes == 1:
            status: seccomp_noproc.Status = {"installed": False, "reason": "disabled for this worker"}
            if self.cfg.get("seccomp"):
                try:
                    if not TYPE_CHECKING:
                        import seccomp_noproc  # sibling file, Linux only

                    status = seccomp_noproc.install()
                except Exception as exc:  # noqa: BLE001 - fall back to the zygote's watch
                    status = {"installed": False, "reason": f"{type(exc).__name__}: {exc}"}
            if status.get("installed"):
                in_force["processes"] = "1 (seccomp filter: fork, vfork and non-thread clone fail with EPERM)"
            else:
                in_force["processes"] = (
                    "1 (watched: the submission is stopped if it starts a process; "
                    f"no seccomp filter: {status.get('reason')})"
                )
        else:
            in_force["processes"] = f"{processes or 'any'} (not counted; all are killed when the submission ends)"
        return in_force

    def write_files(self) -> None:
        os.makedirs(self.workdir, exist_ok=True)
        os.chdir(self.workdir)
        if self.kind == "folder":
            for mod in self.modules_spec:
                path = os.path.join(self.workdir, mod["name"] + ".py")
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(mod["chunks"][0]["code"] if mod["chunks"] else "")
                self.labels[path] = mod["filename"]
            sys.path.insert(0, self.workdir)

    def progress(self, name: str) -> None:
        """Tell the trusted side which module is about to run, in case it ends the process."""
        _write_all(self.resp, wire.dumps({"op": "loading", "module": name}))

    def load(self) -> dict[str, dict[str, object]]:
        report: dict[str, dict[str, object]] = {}
        if self.kind == "folder":
            for mod in self.modules_spec:
                name = mod["name"]
                if name in self.skip:
                    continue
                self.progress(name)
                try:
                    self.namespaces[name] = importlib.import_module(name)
                    report[name] = {"ok": True}
                except BaseException as exc:  # noqa: BLE001 - student code may raise anything
                    sys.modules.pop(name, None)
                    report[name] = {"ok": False, "error": self.describe(exc, exc.__traceback__)}
        else:
            for mod in self.modules_spec:
                if mod["name"] in self.skip:
                    continue
                self.progress(mod["name"])
                ns = types.ModuleType(mod["name"])
                ns.__dict__["__name__"] = "__main__"
                ns.__dict__["display"] = _display  # a built-in in Jupyter: a cell may call it
                sys.modules[mod["name"]] = ns
                errors: list[dict[str, object]] = []
                for chunk in mod["chunks"]:
                    label = chunk["label"]
                    self.labels[label] = label
                    if label in self.skip:
                        continue  # it ended or hung the child before: set aside, as a file is
                    self.progress(label)  # (a cell that ends the child is then named, not the notebook)
                    try:
                        code = compile(chunk["code"], label, "exec", dont_inherit=True)
                        exec(code, ns.__dict__)  # noqa: S102 - this IS the sandboxed side
                    except BaseException as exc:  # noqa: BLE001
                        errors.append(self.describe(exc, exc.__traceback__))
                self.namespaces[mod["name"]] = ns
                report[mod["name"]] = {"ok": not errors, "cell_errors": errors}
                if errors:
                    report[mod["name"]]["error"] = errors[0]
        return report

    # -- errors ----------------------------------------------------------------------------
    def describe(self, exc: BaseException, tb: types.TracebackType | None) -> dict[str, object]:
        where, line = "", 0
        if isinstance(exc, SyntaxError) and exc.filename:
            where = self.labels.get(exc.filename, os.path.basename(str(exc.filename)))
            line = exc.lineno or 0
        else:
            for frame, lineno in traceback.walk_tb(tb):
                fname = frame.f_code.co_filename
                if fname in self.labels:
                    where, line = self.labels[fname], lineno
        frames = [
            f"{self.labels[f.filename]}, line {f.lineno}, in {f.name}"
            for f in traceback.extract_tb(tb)
            if f.filename in self.labels
        ]
        try:
            message = str(exc)
        except BaseException:  # noqa: BLE001 - a hostile __str__
            message = "<message unavailable>"
        return {
            "type": type(exc).__name__[:80],
            "message": message[:MAX_MESSAGE],
            "file": where,
            "line": line,
            "frames": frames[-8:],
            "bases": [c.__name__[:80] for c in type(exc).__mro__[1:]][:12],
        }

    # -- calls -----------------------------------------------------------------------------
    def lookup(self, part: str, func: str) -> object:
        if self.kind == "folder":
            ns = self.namespaces.get(part)
        else:
            ns = next(iter(self.namespaces.values()), None)
        if ns is None:
            return None
        found: object = ns.__dict__.get(func)
        return found

    def answer(self, msg: Frame) -> bytes:
        """Run one call; returns the reply frame (always small enough and always plain data)."""
        call_id = msg.get("id")
        fn = self.lookup(str(msg.get("part")), str(msg.get("func")))
        if not callable(fn):
            return wire.dumps({"id": call_id, "ok": False, "kind": "missing"})
        try:
            args = wire.decode(msg["args"], tensors=True)
            kwargs = wire.decode(msg["kwargs"], tensors=True)
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise TypeError("a call's arguments are a list and a dict")
            value: object = fn(*args, **kwargs)
            if msg.get("echo") is True:  # the caller also wants the arguments as the call left them
                value = {"value": value, "args": args}
        except BaseException as exc:  # noqa: BLE001
            try:
                error = self.describe(exc, exc.__traceback__)
            except BaseException:  # noqa: BLE001 - a hostile exception object
                error = {"type": "Exception", "message": "<unreadable exception>", "file": "", "line": 0}
            del exc
            return wire.dumps({"id": call_id, "ok": False, "kind": "raised", "error": error})
        try:
            size = int(getattr(value, "nbytes", 0) or 0) if type(value).__module__ == "numpy" else 0
            if type(value).__module__.startswith("torch") and hasattr(value, "element_size"):
                # (a tensor's; where it has no nelement the AttributeError makes the value unsendable)
                size = int(getattr(value, "nelement")()) * int(value.element_size())  # noqa: B009
            if size > self.max_reply:  # refuse before the frame copies it
                raise ValueError(f"the value holds {size // (1024 * 1024)} MiB; "
                                 f"at most {self.max_reply // (1024 * 1024)} MiB can be returned")
            frame = wire.dumps({"id": call_id, "ok": True, "value": wire.encode(value)})
            if len(frame) > self.max_reply:
                raise ValueError(
                    f"the value is {len(frame) // (1024 * 1024)} MiB on the wire; "
                    f"at most {self.max_reply // (1024 * 1024)} MiB can be returned"
                )
        except BaseException as exc:  # noqa: BLE001 - object arrays, too big, hostile objects
            frame = b""
            try:
                why = f"{type(exc).__name__}: {str(exc)[:200]}"
                what = type(value).__name__[:80]
            except BaseException:  # noqa: BLE001
                why, what = "unreadable", "object"
            return wire.dumps({"id": call_id, "ok": True, "value": {"$o": f"unsendable {what} ({why})"}})
        return frame

    def run(self) -> None:
        in_force = self.apply_limits()
        # What is in force, said before any student code runs (a later "limits" frame, which
        # student code could write, is ignored by the trusted side).
        _write_all(self.resp, wire.dumps({"op": "limits", "in_force": in_force}))
        self.write_files()
        loaded = self.load()
        _write_all(self.resp, wire.dumps({"op": "loaded", "modules": loaded, "in_force": in_force}))
        while True:
            msg = wire.read_frame(self.req)
            if msg.get("op") == "end":
                return
            if msg.get("op") == "call":
                reply = self.answer(msg)
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                except BaseException:  # noqa: BLE001
                    pass
                _write_all(self.resp, reply)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _child_main(cfg: ZygoteConfig, msg: OpenRequest) -> None:
    code = 0
    try:
        os.close(cfg["ctl_in"])
        os.close(cfg["ctl_out"])
        if not cfg.get("pid1") and hasattr(os, "setsid"):
            os.setsid()
        for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGPIPE", None)):
            if sig is not None:
                signal.signal(sig, signal.SIG_DFL)
        _Child(cfg, msg).run()
    except BaseException:  # noqa: BLE001 - the child never returns into the zygote loop
        code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _public(path: str) -> bool:
    """Whether any user can read ``path`` (a folder): it and every folder above it."""
    path = os.path.realpath(path)
    try:
        if not os.stat(path).st_mode & stat.S_IROTH:
            return False
        while True:
            if not os.stat(path).st_mode & stat.S_IXOTH:
                return False
            parent = os.path.dirname(path)
            if parent == path:
                return True
            path = parent
    except OSError:
        return False


def _python_folders() -> list[str]:
    """Where student code may import from: the standard library and the preloaded packages."""
    folders = [os.path.dirname(os.__file__)]
    for name in ("numpy", "torch"):
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None) if module is not None else None
        if file:
            folders.append(os.path.dirname(os.path.dirname(file)))
    return folders


def _unprivileged(scratch: str, uid: int | str | None) -> list[int | str] | str | None:
    """[uid, gid, name] of the user student code runs as when the zygote is root (and not in
    namespaces): ``uid``, a user id of this grading worker's own that the trusted side claimed
    (unlisted, held by it alone on this machine), with the group of the same number. The
    scratch folder is handed to that user, so the submission can still write its files there,
    and no other worker's student can read them.

    Returns why not (a str) when an unprivileged user could not import Python itself (an
    interpreter inside a root-only folder: a correct submission must not fail on ``import
    fractions``), the trusted side had no user id to give (``uid`` is its reason), or the scratch
    folder could not be handed over. The trusted side then refuses to grade, and a child never
    runs student code as root (:func:`_become` raises).
    """
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    closed = [f for f in _python_folders() if not _public(f)]
    if closed:
        return f"the unprivileged user nobody cannot read Python's own files in {closed[0]}"
    if not isinstance(uid, int):
        return uid or "no user id of its own was given to this grading worker"
    try:
        for folder in (scratch, os.path.join(scratch, "submission")):
            os.makedirs(folder, exist_ok=True)
            os.chown(folder, uid, uid)
            os.chmod(folder, 0o700)
    except OSError as exc:
        return f"the scratch folder could not be handed to the unprivileged user nobody ({exc})"
    return [uid, uid, f"uid {uid}"]


def _become(run_as: list[int | str] | str | None) -> str:
    """Switch this child to ``run_as`` for good (groups, gid, then uid); what it became.

    Raises:
        PermissionError: ``run_as`` says why no unprivileged user can be had; this process
            (root) must not run student code.
    """
    if not isinstance(run_as, list):
        raise PermissionError(f"refusing to run student code as root: {run_as or 'no unprivileged user'}")
    uid, gid, name = int(run_as[0]), int(run_as[1]), run_as[2]
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.geteuid() == 0 or os.getegid() == 0:
        raise OSError("still root after setresuid")
    os.umask(0o077)  # what the submission writes (in its scratch, in /tmp) is its own
    return (f"{name} (gid {gid}, a user of this grading worker alone, like nobody): root-only files and "
            "other workers' submissions are out of reach")


def _drop_capabilities() -> str:
    """Drop every capability of this process (rlimits level run by root)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this pid
        data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable x 2: all zero
        if libc.capset(header, data) != 0:
            return f"not dropped (errno {ctypes.get_errno()})"
        return "none"
    except (OSError, AttributeError) as exc:
        return f"not dropped ({exc})"


# --------------------------------------------------------------------------- the zygote


def _sweep(cfg: ZygoteConfig, child: int) -> None:
    """Kill every process the child started, however it hid, and reap them."""
    while True:
        if cfg.get("pid1"):
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:
            for pid in _descendants(os.getpid()):
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                os.killpg(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, AttributeError):
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _children_of(pid: int) -> list[int]:
    pids: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                pids.extend(int(p) for p in fh.read().split())
    except OSError:
        pass
    return pids


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc; empty elsewhere)."""
    out: list[int] = []
    todo = _children_of(pid)
    while todo and len(out) < 100000:
        p = todo.pop()
        out.append(p)
        todo.extend(_children_of(p))
    return out


def _extra_processes(cfg: ZygoteConfig, child: int) -> list[int]:
    """Processes besides the child itself (used when no seccomp filter forbids them)."""
    if cfg.get("pid1"):
        try:
            return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in (1, child)]
        except OSError:
            return []
    return [p for p in _descendants(os.getpid()) if p != child]


def _filtered(pid: int) -> bool:
    """Whether ``pid`` runs under a seccomp filter (Linux: the Seccomp line of its status)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("Seccomp:"):
                    return line.split()[1] == "2"
    except (OSError, IndexError):
        pass
    return False


def _wipe(path: str) -> None:
    """Empty ``path`` without recursion, following no link, undoing any chmod on the way."""
    stack = [(e.path, False) for e in _scan(path)]
    while stack:
        entry, emptied = stack.pop()
        try:
            st = os.lstat(entry)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            if emptied:
                try:
                    os.rmdir(entry)
                except OSError:
                    pass
                continue
            try:
                os.chmod(entry, 0o700)
            except OSError:
                pass
            stack.append((entry, True))
            stack.extend((e.path, False) for e in _scan(entry))
        else:
            try:
                os.unlink(entry)
            except OSError:
                pass


def _scan(path: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return list(it)
    except OSError:
        return []


def _remove_sysv_ipc() -> None:
    """Remove the System V IPC objects a child left in the sandbox's own IPC namespace."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return
    ipc_rmid = 0
    for kind, call in (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl")):
        try:
            with open(f"/proc/sysvipc/{kind}") as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 1 and fields[1].isdigit():
                if kind == "sem":
                    getattr(libc, call)(int(fields[1]), 0, ipc_rmid)
                else:
                    getattr(libc, call)(int(fields[1]), ipc_rmid, None)


def _health(cfg: ZygoteConfig) -> list[str]:
    """What is left over after a child (empty when the zygote is fit for the next one)."""
    problems = []
    for path in cfg["wipe"]:
        left = _scan(path)
        if left:
            problems.append(f"{len(left)} entries left in {path}")
    if cfg.get("pid1"):
        others = _extra_processes(cfg, 1)
        if others:
            problems.append(f"{len(others)} processes left")
        for kind in ("shm", "msg", "sem"):
            try:
                with open(f"/proc/sysvipc/{kind}") as fh:
                    if len(fh.read().splitlines()) > 1:
                        problems.append(f"System V {kind} objects left")
            except OSError:
                pass
    return problems


def _supervise(cfg: ZygoteConfig, pid: int, generation: int, watch: bool) -> dict[str, object]:
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    killed: str | None = None
    status = 0
    while True:
        wait_s = None if pidfd is not None and not watch else 0.02
        fds = [cfg["ctl_in"]] + ([pidfd] if pidfd is not None else [])
        ready, _, _ = select.select(fds, [], [], wait_s)
        if cfg["ctl_in"] in ready:
            try:
                msg = wire.read_frame(cfg["ctl_in"])
            except EOFError:
                os.kill(pid, signal.SIGKILL)
                raise
            if msg.get("op") == "kill" and msg.get("child", generation) == generation and killed is None:
                killed = str(msg.get("reason") or "kill")[:40]
                os.kill(pid, signal.SIGKILL)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if watch and killed is None:
            if _filtered(pid):
                watch = False  # the seccomp filter is in place: nothing to watch for
            elif _extra_processes(cfg, pid):
                killed = "processes"
                os.kill(pid, signal.SIGKILL)
    if pidfd is not None:
        os.close(pidfd)
    _sweep(cfg, pid)
    wire.drain(cfg["req"])
    for path in cfg["wipe"]:
        if os.path.isdir(path):
            _wipe(path)
    if cfg.get("pid1"):
        _remove_sysv_ipc()
    result: dict[str, object] = {"op": "closed", "child": generation, "killed": killed is not None}
    if killed is not None:
        result["reason"] = killed
    if os.WIFSIGNALED(status):
        result["signal"] = os.WTERMSIG(status)
    else:
        result["exit"] = os.WEXITSTATUS(status)
    problems = _health(cfg)
    result["clean"] = not problems
    if problems:
        result["problems"] = problems
    return result


def _own_stdio(cfg: ZygoteConfig) -> None:
    """Subprocess level: keep private copies of stdin/stdout for the frames.

    Afterwards fd 0 reads the null device and fd 1 (and so ``print``) writes to stderr, which
    the trusted side captures and caps; ``os.dup``/``os.dup2`` work the same on Windows.
    """
    cfg["req"] = cfg["ctl_in"] = os.dup(0)
    cfg["resp"] = cfg["ctl_out"] = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)


def _cpu_seconds() -> float:
    try:
        times = os.times()
        return float(times.user + times.system)
    except (AttributeError, OSError):
        return 0.0


def _serve_in_process(cfg: ZygoteConfig, msg: OpenRequest) -> None:
    """Where there is no fork (Windows): serve one submission here, then exit for good."""
    code = 0
    try:
        _Child(cfg, msg).run()
    except BaseException:  # noqa: BLE001
        code = 70
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        wire.write_frame(cfg["ctl_out"], {"op": "closed", "child": 1, "killed": False, "exit": code,
                                          "clean": False, "problems": ["one submission per process"]})
    finally:
        os._exit(0)


def _warm_up(torch: types.ModuleType, more: bool = False) -> None:
    """Run once, here, the operations students' code typically uses.

    torch and numpy initialise kernels, dispatch tables and caches lazily on first use; done
    in the zygote, every forked child inherits them instead of paying ~10-20 ms per
    submission. Threads are already pinned to one, so no OpenMP pool exists to break fork.
    """
    import math

    import numpy as np

    F = torch.nn.functional
    for dtype in (torch.float32, torch.float64):
        gen = torch.Generator().manual_seed(0)
        q = torch.randn(64, 16, generator=gen, dtype=dtype)
        k = torch.randn(64, 16, generator=gen, dtype=dtype)
        dots = (q * k).sum(dim=1)
        dots.var(), dots.var(unbiased=False), dots.std(), dots.mean(), torch.var(dots)
        torch.rand(4, 4, generator=gen, dtype=dtype)
        s = q @ k.T / math.sqrt(16)
        s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
        torch.softmax(s, dim=-1), F.softmax(s, dim=0), torch.exp(s - s.max(dim=-1, keepdim=True).values)
        torch.logsumexp(s, dim=-1), torch.rsqrt(torch.tensor(16.0, dtype=dtype)), torch.sqrt(s.abs())
        torch.einsum("id,jd->ij", q, k), torch.matmul(q, k.transpose(0, 1)), torch.bmm(q[None], k.T[None])
        x = q.view(1, 16, 4, 16).transpose(1, 2).reshape(1, 4, 256).contiguous()
        F.scaled_dot_product_attention(q[None, None], k[None, None], k[None, None])
        torch.diag(q[0]) - torch.outer(q[0], q[0]), torch.diag_embed(q[:2]), x.permute(0, 2, 1).numpy()
        torch.from_numpy(np.ones((2, 2))), torch.tensor([1.0, 2.0], dtype=dtype).tolist(), s.max().item()
        torch.allclose(q, q), torch.isfinite(s).all(), torch.zeros_like(s), torch.full_like(s, 1.0)
    if more:
        # broadcast_shapes imports sympy on first use: ~0.25 s that every child calling it
        # would otherwise pay again (a batch asks for this; one check would only wait longer).
        torch.broadcast_shapes((2, 1, 3), (4, 3))
    torch.manual_seed(0)
    torch.randn(8, 8)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 16))
    np.var(a @ a.T, ddof=1), np.exp(a - a.max(axis=-1, keepdims=True)).sum(-1), np.einsum("id,jd->ij", a, a)
    np.random.seed(0)
    np.random.randn(4)


def main() -> None:
    cfg: ZygoteConfig = json.loads(sys.argv[1])  # the trusted side's (Worker.start)
    _start(cfg)
    torch = _import_and_warm(cfg)
    if not cfg.get("pid1"):  # (after the imports: it checks their folders)
        cfg["run_as"] = _unprivileged(cfg["scratch"], cfg.get("student_uid"))
    cfg["vmsize_kb"] = _vmsize_kb()
    cfg["cpu_spent_s"] = _cpu_seconds() if cfg["spawned"] else 0.0
    can_fork = hasattr(os, "fork") and not cfg["spawned"]
    wire.write_frame(cfg["ctl_out"], {
        "op": "ready",
        "vmsize_kb": cfg["vmsize_kb"],
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "torch": getattr(torch, "__version__", None),
        "fork": can_fork,
        # root outside namespaces and no unprivileged user to become: the trusted side refuses
        "refused": cfg["run_as"] if isinstance(cfg.get("run_as"), str) else None,
    })
    _serve(cfg, can_fork)


def _start(cfg: ZygoteConfig) -> None:
    """Signals, process flags and the scratch folder, before anything is imported."""
    sys.dont_write_bytecode = True  # -I ignores PYTHONDONTWRITEBYTECODE
    cfg["spawned"] = spawned = bool(cfg.get("spawned"))
    if spawned:
        _own_stdio(cfg)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL if cfg.get("pid1") else signal.SIG_IGN)
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if not cfg.get("pid1"):
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    os.makedirs(cfg["scratch"], exist_ok=True)
    wipe = [cfg["scratch"]]
    if cfg.get("pid1") and os.path.isdir("/dev/shm"):
        wipe.append("/dev/shm")  # the sandbox's own small tmpfs
    cfg["wipe"] = cfg.get("wipe") or wipe


def _import_and_warm(cfg: ZygoteConfig) -> types.ModuleType | None:
    """Import numpy and torch once (every child inherits them), warm torch, freeze the heap;
    returns torch, or None where it is not installed."""
    # Importing torch makes ~10^6 objects and almost no garbage: the collector's passes over
    # them cost ~15 % of the import. It is off until everything is imported and frozen.
    gc.disable()
    import numpy  # noqa: F401

    imported: types.ModuleType | None = None
    try:
        import torch

        imported = torch
        # Before any op: the OpenMP pool must not exist when we fork (a child would hang).
        torch.set_num_threads(int(cfg.get("threads", 1)))
        import torch.nn.functional  # noqa: F401

        # Warm up on one thread whatever the worker's setting: an op run on more threads
        # would start the OpenMP pool here, and a child forked after that hangs on its own
        # first parallel op. Setting the count back starts no pool.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            if not cfg["spawned"]:  # nothing is forked from a spawned process: no one to share it with
                _warm_up(torch, more=bool(cfg.get("warm_more")))
        except Exception:  # noqa: BLE001 - a warm-up that fails costs speed, never a grade
            pass
        torch.set_num_threads(threads)
    except ImportError:
        pass
    if cfg.get("seccomp"):
        try:  # import and build the process filter once; each child then only installs it
            if not TYPE_CHECKING:
                import seccomp_noproc  # sibling file, Linux only

            seccomp_noproc.prepare()
        except Exception:  # noqa: BLE001 - the child reports why when it tries
            pass
    # No collection first: a full pass over the million objects costs ~0.13 s and would find
    # almost nothing (imports leave next to no garbage). Frozen objects are never traversed.
    gc.freeze()
    gc.enable()  # (the children inherit it on: a student's cycles are collected as usual)
    return imported


def _serve(cfg: ZygoteConfig, can_fork: bool) -> None:
    """Answer the trusted side's control frames: a child per ``open``, until ``exit`` or EOF."""
    generation = 0
    while True:
        try:
            msg = wire.read_frame(cfg["ctl_in"])
        except EOFError:
            return
        op = msg.get("op")
        if op == "exit":
            return
        if op == "ping":
            problems = _health(cfg)
            wire.write_frame(cfg["ctl_out"], {"op": "pong", "clean": not problems, "problems": problems})
            continue
        if op != "open":
            continue  # e.g. a kill that arrived after its child had already ended
        generation += 1
        if not cfg["spawned"]:  # (a spawned process serves one submission: nothing came before it)
            wire.drain(cfg["req"])  # anything written for an earlier child is not for this one
        request = cast("OpenRequest", msg)  # the trusted side's own (Worker.spawn_child)
        limits = request.get("limits") or {}
        if not can_fork:
            _serve_in_process(cfg, request)
        pid = os.fork()
        if pid == 0:
            _child_main(cfg, request)
        watch = int(limits.get("processes") or 0) == 1
        wire.write_frame(cfg["ctl_out"], _supervise(cfg, pid, generation, watch))


if __name__ == "__main__":
    main()
