"""The user ids student code runs as, where the grader is root and no namespace separates users.

Every worker of a batch grades at once. With one shared unprivileged user (``nobody``) for all of
them, one student's code could read another student's files in that worker's scratch folder
while both are being graded. So each grading worker claims a user id of its own from
:data:`STUDENT_UIDS`: unlisted (not any account's), below 65535 (a container's map of 65,536 ids
holds it), and held, for as long as the worker lives, by an exclusive ``flock`` on a file in a
folder only root may write (``/run/grader-student-uids``). The lock is held here, on the trusted
side: no process that runs student code has its descriptor, so none can let it go.

Example::

    claim = claim_uid()      # Claim(uid=61000, fd=…) or Claim(uid="why not", fd=None)
    ...
    claim.release()
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass

from grader.i18n.messages import said

__all__ = ["STUDENT_UIDS", "Claim", "claim_uid", "hold"]

#: the ids handed out, one per grading worker at a time
STUDENT_UIDS = range(61000, 65000)


@dataclass
class Claim:
    """A user id held for one grading worker (``uid`` is why not, as a str, when none could be had)."""

    uid: int | str
    fd: int | None = None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _folder() -> str | None:
    """Root's own folder of locks: ``/run`` first (no other user may write there), else the temporary
    folder; one that exists but is not root's alone (a link, another owner, open to others) is not used."""
    for base in ("/run", tempfile.gettempdir()):
        folder = os.path.join(base, "grader-student-uids")
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        try:
            st = os.lstat(folder)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() == 0 and not st.st_mode & 0o077:
            return folder
    return None


def _listed(uid: int) -> bool:
    try:
        import pwd
    except ImportError:
        return False
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def hold(path: str | os.PathLike[str]) -> int | None:
    """An exclusive ``flock`` on the lock file ``path`` (made if need be, never through a link):
    its descriptor, held until closed; None when another process holds it or it cannot be opened."""
    import fcntl

    try:
        fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def claim_uid() -> Claim:
    """A user id of :data:`STUDENT_UIDS` no other grading worker on this machine holds."""
    folder = _folder()
    if folder is None:
        return Claim(said("no_folder_root_s"))
    for uid in STUDENT_UIDS:
        if _listed(uid):
            continue  # an account's id: never handed to student code
        fd = hold(os.path.join(folder, f"{uid}.lock"))
        if fd is not None:
            return Claim(uid, fd)
    return Claim(said("every_user_id_held", first=STUDENT_UIDS.start, last=STUDENT_UIDS.stop - 1))
