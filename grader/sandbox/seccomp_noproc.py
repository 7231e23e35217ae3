"""A seccomp-BPF filter that forbids starting processes (threads stay allowed).

Loaded INSIDE the sandbox by the zygote's child, after the fork and before any student code
runs. Standard library and ctypes only; it never imports the ``grader`` package.

Why: ``RLIMIT_NPROC`` is not enforced for root (and the sandbox's uid maps to the launching
user), so a process cap needs the kernel's help. The filter:

* checks the architecture (x86_64 and aarch64; anything else, including 32-bit and x32
  system calls on an x86_64 kernel, gets ``EPERM``);
* makes ``fork`` and ``vfork`` fail with ``EPERM``;
* lets ``clone`` through only when ``CLONE_THREAD`` is set in its flags (a thread), else ``EPERM``;
* makes ``clone3`` fail with ``ENOSYS`` (its flags sit in memory a filter cannot read; glibc
  then falls back to ``clone``, which the rule above checks);
* refuses (``EPERM``) what a submission has no business doing: ``ptrace``,
  ``process_vm_readv/writev``, ``kexec_*``, ``mount``/``umount2``/``pivot_root``/``chroot``,
  ``unshare``/``setns``, the new mount API, ``bpf``, ``perf_event_open``, key management,
  ``userfaultfd``, ``io_uring_*``, and System V / POSIX message queues and shared memory
  (they would outlive the child inside the worker's IPC namespace).

Example (inside the sandbox)::

    import seccomp_noproc
    status = seccomp_noproc.install()   # {"installed": True, "arch": "x86_64"} or a reason
    os.fork()                            # PermissionError: [Errno 1] Operation not permitted
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct
from typing import TypedDict

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000

# BPF opcodes
BPF_LD, BPF_JMP, BPF_RET = 0x00, 0x05, 0x06
BPF_W, BPF_ABS, BPF_K = 0x00, 0x20, 0x00
BPF_JEQ, BPF_JGE, BPF_JSET = 0x10, 0x30, 0x40

# offsets in struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6];}
OFF_NR, OFF_ARCH, OFF_ARG0_LO = 0, 4, 16

CLONE_THREAD = 0x00010000
X32_SYSCALL_BIT = 0x40000000

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

# System call numbers. fork/vfork exist only on x86_64; aarch64 forks through clone.
_DENY_COMMON = [
    "ptrace", "process_vm_readv", "process_vm_writev", "kexec_load", "kexec_file_load",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "add_key", "request_key", "keyctl", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "shmget", "msgget", "semget", "mq_open",
]
NR = {
    "x86_64": {
        "fork": 57, "vfork": 58, "clone": 56, "clone3": 435,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
        "kexec_load": 246, "kexec_file_load": 320, "mount": 165, "umount2": 166,
        "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442, "bpf": 321, "perf_event_open": 298,
        "add_key": 248, "request_key": 249, "keyctl": 250, "userfaultfd": 323,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "shmget": 29, "msgget": 68, "semget": 64, "mq_open": 240,
    },
    "aarch64": {
        "clone": 220, "clone3": 435,
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
        "kexec_load": 104, "kexec_file_load": 294, "mount": 40, "umount2": 39,
        "pivot_root": 41, "chroot": 51, "unshare": 97, "setns": 268,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442, "bpf": 280, "perf_event_open": 241,
        "add_key": 217, "request_key": 218, "keyctl": 219, "userfaultfd": 282,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "shmget": 194, "msgget": 186, "semget": 190, "mq_open": 180,
    },
}


def _stmt(code: int, k: int) -> tuple[int, int, int, int]:
    return (code, 0, 0, k)


def _jump(code: int, k: int, jt: int, jf: int) -> tuple[int, int, int, int]:
    return (code, jt, jf, k)


def machine() -> str:
    """The kernel architecture as this module names it ("x86_64", "aarch64", or other)."""
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def build_filter(arch: str) -> list[tuple[int, int, int, int]]:
    """The BPF program for ``arch`` as (code, jt, jf, k) instructions."""
    nr = NR[arch]

    def errno_ret(e: int) -> tuple[int, int, int, int]:
        return _stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e & 0xFFFF))

    prog: list[tuple[int, int, int, int]] = [
        _stmt(BPF_LD | BPF_W | BPF_ABS, OFF_ARCH),
        _jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH[arch], 1, 0),
        errno_ret(errno.EPERM),  # a foreign ABI (e.g. 32-bit int 0x80 on x86_64)
        _stmt(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
    ]
    if arch == "x86_64":  # x32 system calls carry bit 30; refuse the whole ABI
        prog += [_jump(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 0, 1), errno_ret(errno.EPERM)]
    deny = [nr[name] for name in ("fork", "vfork") if name in nr]
    deny += [nr[name] for name in _DENY_COMMON]
    for number in deny:
        prog += [_jump(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 1), errno_ret(errno.EPERM)]
    prog += [_jump(BPF_JMP | BPF_JEQ | BPF_K, nr["clone3"], 0, 1), errno_ret(errno.ENOSYS)]
    # clone: allow only with CLONE_THREAD in the low 32 bits of args[0] (flags on both arches)
    prog += [
        _jump(BPF_JMP | BPF_JEQ | BPF_K, nr["clone"], 0, 3),
        _stmt(BPF_LD | BPF_W | BPF_ABS, OFF_ARG0_LO),
        _jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
        errno_ret(errno.EPERM),
        _stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    ]
    return prog


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Prepared(TypedDict, total=False):
    """The filter built and libc loaded (``arch`` to ``fprog``), or why not (``reason``)."""

    arch: str
    libc: ctypes.CDLL
    buf: ctypes.Array[ctypes.c_char]
    fprog: _SockFprog
    reason: str


class Status(TypedDict, total=False):
    """Whether the filter is in force on this thread (with ``arch``), or why not (``reason``)."""

    installed: bool
    arch: str
    reason: str


_PREPARED: Prepared = {}


def prepare() -> Prepared:
    """Build the program and load libc once (the zygote calls this, so each child only installs).

    Returns ``{"arch", "libc", "buf", "fprog"}``, or ``{"reason": ...}`` where no filter can be had.
    """
    if _PREPARED:
        return _PREPARED
    arch = machine()
    if arch not in NR:
        return {"reason": f"no process filter for the {arch} architecture"}
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError as exc:
        return {"reason": f"libc not available: {exc}"}
    prog = build_filter(arch)
    raw = b"".join(struct.pack("=HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))
    fprog = _SockFprog(len(prog), ctypes.cast(buf, ctypes.c_void_p))
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    _PREPARED.update({"arch": arch, "libc": libc, "buf": buf, "fprog": fprog})
    return _PREPARED


def install() -> Status:
    """Install the filter on the calling thread (call it before starting any thread).

    Returns:
        ``{"installed": True, "arch": ...}``, or ``{"installed": False, "reason": ...}`` when
        this platform cannot have it (the caller then relies on its own fallback).
    """
    ready = prepare()
    if "reason" in ready:
        return {"installed": False, "reason": ready["reason"]}
    arch, libc, fprog = ready["arch"], ready["libc"], ready["fprog"]
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return {"installed": False, "reason": f"PR_SET_NO_NEW_PRIVS failed: {errno.errorcode.get(ctypes.get_errno(), '?')}"}
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        err = ctypes.get_errno()
        return {"installed": False, "reason": f"seccomp filter refused: {errno.errorcode.get(err, err)}"}
    return {"installed": True, "arch": arch}


if __name__ == "__main__":  # manual check: python seccomp_noproc.py
    import os

    print(install())
    try:
        os.fork()
        print("fork: allowed")
    except OSError as exc:
        print("fork:", exc)
