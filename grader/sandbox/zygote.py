"""The untrusted side: a warm process that forks one child per submission.

This file runs INSIDE the sandbox, loaded as a plain script beside ``wire.py`` (it never
imports the ``grader`` package, which is not visible there). It holds no secret: no rubric,
no suite, no reference. It imports torch once, then for every submission:

1. reads ``{"op": "open", ...}`` from the control pipe and forks a child;
2. the child applies the limits, writes the submission's files into the scratch folder,
   imports them, and answers ``call`` requests on the call pipes until ``end``;
3. when the child is gone the zygote kills everything the child left behind, empties the
   request pipe and the scratch folder, and reports ``closed`` on the control pipe.

As PID 1 of its own PID namespace (bubblewrap ``--as-pid-1``) the zygote cannot be signalled
by the processes it forks, and ``kill(-1, SIGKILL)`` reaches every one of them. It is also
marked non-dumpable, so its children cannot ptrace it or read its memory.

Pipes (their numbers arrive in the JSON config, ``argv[1]``): ``req`` (trusted → child),
``resp`` (child → trusted), ``ctl_in`` (trusted → zygote), ``ctl_out`` (zygote → trusted).
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import resource
import select
import shutil
import signal
import sys
import traceback
import types

_HERE = os.path.dirname(os.path.abspath(__file__))
# wire.py sits beside this file inside the sandbox, one folder up in the source tree.
sys.path.insert(0, _HERE if os.path.exists(os.path.join(_HERE, "wire.py")) else os.path.dirname(_HERE))
import wire  # noqa: E402

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
MAX_MESSAGE = 2000


def _prctl(option: int, value: int) -> None:
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


class _Child:
    """Loads one submission and serves calls; runs only in the forked child."""

    def __init__(self, cfg: dict, msg: dict) -> None:
        self.cfg = cfg
        self.req, self.resp = cfg["req"], cfg["resp"]
        self.kind = msg["kind"]
        self.modules_spec = msg["modules"]
        self.limits = msg.get("limits", {})
        self.workdir = os.path.join(cfg["scratch"], "submission")
        self.namespaces: dict[str, types.ModuleType] = {}
        self.labels: dict[str, str] = {}  # code filename -> what the student sees

    # -- set-up --------------------------------------------------------------------------
    def apply_limits(self) -> None:
        lim = self.limits
        mb = 1024 * 1024

        def cap(which: int, soft: int, hard: int | None = None) -> None:
            try:
                resource.setrlimit(which, (soft, soft if hard is None else hard))
            except (ValueError, OSError):
                pass

        if lim.get("memory_mb"):
            cap(resource.RLIMIT_AS, self.cfg["vmsize_kb"] * 1024 + int(lim["memory_mb"]) * mb)
        if lim.get("cpu_s"):
            soft = max(1, int(lim["cpu_s"]))
            cap(resource.RLIMIT_CPU, soft, soft + 1)
        if lim.get("file_size_mb"):
            cap(resource.RLIMIT_FSIZE, int(lim["file_size_mb"]) * mb)
        cap(resource.RLIMIT_CORE, 0)
        nofile = int(lim.get("open_files", 256))
        cap(resource.RLIMIT_NOFILE, nofile)
        if lim.get("processes") and self.cfg.get("seccomp"):
            import seccomp_noproc  # sibling file, Linux only

            seccomp_noproc.install()

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

    def load(self) -> dict:
        report: dict[str, dict] = {}
        if self.kind == "folder":
            for mod in self.modules_spec:
                name = mod["name"]
                try:
                    self.namespaces[name] = importlib.import_module(name)
                    report[name] = {"ok": True}
                except BaseException as exc:  # noqa: BLE001 - student code may raise anything
                    sys.modules.pop(name, None)
                    report[name] = {"ok": False, "error": self.describe(exc, exc.__traceback__)}
        else:
            for mod in self.modules_spec:
                ns = types.ModuleType(mod["name"])
                ns.__dict__["__name__"] = "__main__"
                sys.modules[mod["name"]] = ns
                errors = []
                for chunk in mod["chunks"]:
                    label = chunk["label"]
                    self.labels[label] = label
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
    def describe(self, exc: BaseException, tb: types.TracebackType | None) -> dict:
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
    def lookup(self, part: str, func: str):  # noqa: ANN201
        if self.kind == "folder":
            ns = self.namespaces.get(part)
        else:
            ns = next(iter(self.namespaces.values()), None)
        if ns is None:
            return None
        return ns.__dict__.get(func)

    def answer(self, msg: dict) -> dict:
        fn = self.lookup(msg["part"], msg["func"])
        if not callable(fn):
            return {"id": msg["id"], "ok": False, "kind": "missing"}
        try:
            args = wire.decode(msg["args"], tensors=True)
            kwargs = wire.decode(msg["kwargs"], tensors=True)
            value = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001
            return {"id": msg["id"], "ok": False, "kind": "raised",
                    "error": self.describe(exc, exc.__traceback__)}
        try:
            encoded = wire.encode(value)
        except BaseException as exc:  # noqa: BLE001 - e.g. an object array
            encoded = {"$o": f"unsendable {type(value).__name__}: {str(exc)[:200]}"}
        return {"id": msg["id"], "ok": True, "value": encoded}

    def run(self) -> None:
        self.apply_limits()
        self.write_files()
        loaded = self.load()
        wire.write_frame(self.resp, {"op": "loaded", "modules": loaded})
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
                wire.write_frame(self.resp, reply)


def _child_main(cfg: dict, msg: dict) -> None:
    code = 0
    try:
        os.close(cfg["ctl_in"])
        os.close(cfg["ctl_out"])
        if not cfg.get("pid1"):
            os.setsid()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
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


# --------------------------------------------------------------------------- the zygote


def _sweep(cfg: dict, child: int) -> None:
    """Kill every process the child started, however it hid, and reap them."""
    while True:
        if cfg.get("pid1"):
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:
            for pid in _direct_children():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                os.killpg(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _direct_children() -> list[int]:
    pids: list[int] = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as fh:
                pids.extend(int(p) for p in fh.read().split())
    except OSError:
        pass
    return pids


def _drain(fd: int) -> None:
    os.set_blocking(fd, False)
    try:
        while os.read(fd, 1 << 16):
            pass
    except BlockingIOError:
        pass
    finally:
        os.set_blocking(fd, True)


def _wipe(path: str) -> None:
    for entry in os.scandir(path):
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def _supervise(cfg: dict, pid: int) -> dict:
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    killed = False
    while True:
        watch = [cfg["ctl_in"]] + ([pidfd] if pidfd is not None else [])
        ready, _, _ = select.select(watch, [], [], None if pidfd is not None else 0.05)
        if cfg["ctl_in"] in ready:
            try:
                msg = wire.read_frame(cfg["ctl_in"])
            except EOFError:
                os.kill(pid, signal.SIGKILL)
                raise
            if msg.get("op") == "kill":
                killed = True
                os.kill(pid, signal.SIGKILL)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    if pidfd is not None:
        os.close(pidfd)
    _sweep(cfg, pid)
    _drain(cfg["req"])
    for path in cfg.get("wipe", [cfg["scratch"]]):
        if os.path.isdir(path):
            _wipe(path)
    result = {"op": "closed", "killed": killed}
    if os.WIFSIGNALED(status):
        result["signal"] = os.WTERMSIG(status)
    else:
        result["exit"] = os.WEXITSTATUS(status)
    return result


def main() -> None:
    cfg = json.loads(sys.argv[1])
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sig, signal.SIG_DFL if cfg.get("pid1") else signal.SIG_IGN)
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if not cfg.get("pid1"):
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    os.makedirs(cfg["scratch"], exist_ok=True)
    import numpy  # noqa: F401

    torch = None
    try:
        import torch

        torch.set_num_threads(int(cfg.get("threads", 1)))
        import torch.nn.functional  # noqa: F401
    except ImportError:
        pass
    gc.collect()
    gc.freeze()
    cfg["vmsize_kb"] = _vmsize_kb()
    wire.write_frame(cfg["ctl_out"], {
        "op": "ready",
        "vmsize_kb": cfg["vmsize_kb"],
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "torch": getattr(torch, "__version__", None),
    })
    while True:
        try:
            msg = wire.read_frame(cfg["ctl_in"])
        except EOFError:
            return
        if msg.get("op") == "exit":
            return
        if msg.get("op") != "open":
            continue
        pid = os.fork()
        if pid == 0:
            _child_main(cfg, msg)
        wire.write_frame(cfg["ctl_out"], _supervise(cfg, pid))


if __name__ == "__main__":
    main()
