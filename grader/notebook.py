"""Check from inside the notebook: ``from grader import notebook; notebook.check()``.

The check grades what has been run in this kernel: the source of the cells executed so far,
in the order they ran (taken from the kernel's history, not from the saved file, which may be
stale), with the quiz answers from the saved notebook's answers cell when it can be found. It
finds the assignment's rubric by walking up from the kernel's working folder, runs the public
tests in the strongest sandbox this machine offers, and shows the result in the cell: the
score of each part, every test not passed with its feedback, the recognised mistake with your
numbers, how many more tests run at grading, and the sandbox level used (HTML, and plain text
for front-ends without HTML).

The first check starts a warm checker (:class:`grader.engines.warm_checker.WarmChecker`): a trusted process
holding the tests and the score, with its own sandboxed zygote that has imported torch. It
stays alive, in the background, for the kernel's life, so each later check only forks a fresh
sandboxed child. Neither the tests nor the score are ever in this kernel: a variable or a
monkeypatch in the notebook cannot reach them.

Also a magic, loaded with this module (or ``%load_ext grader.notebook``)::

    %grader                 # same as notebook.check()
    %grader part1           # one part (a part id of the rubric)
    %grader --lang en --plots

Example::

    from grader import notebook
    notebook.check()            # every part
    notebook.check("part1")     # one part
"""

from __future__ import annotations

import atexit
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import GraderError, UsageError
from grader.i18n.messages import said

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from grader.engines.warm_checker import CheckResult, WarmChecker
    from grader.ingest.submission.model import Chunk
    from grader.spec.rubric.model import Rubric

__all__ = ["CellsNotRun", "check", "load_ipython_extension", "shutdown", "status"]

_CHECKER: dict[str, WarmChecker] = {}  # rubric file -> its checker, for the kernel's life
_RUBRICS: dict[str, tuple[float, Rubric]] = {}  # rubric file -> (mtime, loaded rubric)
_LANGS = ("ja", "en")
#: the session's notebook path, where the front-end says it (Jupyter server, VS Code)
_SESSION_NAMES = ("__session__", "__vsc_ipynb_file__")


class CellsNotRun(UsageError):
    """The check ran before the cells that define the assignment's functions.

    Args:
        functions: the functions no cell run in this kernel defines, in the rubric's order.
        lang: the language to say it in.
    """

    def __init__(self, functions: list[str], lang: str = "ja") -> None:
        self.functions = functions
        self.lang = lang
        super().__init__(said("run_cells_define_these", functions=", ".join(functions)))


def _defined(chunks: Iterable[Chunk]) -> set[str] | None:
    """Every name the cells' code binds anywhere (def, class, assignment, import); None when
    that cannot be told (a cell that does not parse, ``import *``): then grading says it."""
    import ast

    names: set[str] = set()
    for chunk in chunks:
        try:
            tree = ast.parse(chunk.code)
        except (SyntaxError, ValueError):
            return None
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.name == "*":
                        return None
                    names.add((alias.asname or alias.name).split(".")[0])
    return names


def _not_run(loaded: Rubric, part: str | None, chunks: Iterable[Chunk]) -> list[str]:
    """The rubric's functions (of ``part``, or all) that no cell run so far defines."""
    defined = _defined(chunks)
    if defined is None:
        return []
    wanted = [f for p in loaded.parts if part is None or p.id == part for f in (p.functions or ())]
    return [f for f in dict.fromkeys(wanted) if f not in defined]


def _shell() -> InteractiveShell | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell: InteractiveShell | None = get_ipython()
    return shell


def _executed_cells(shell: object) -> list[tuple[str, str]]:
    """``(label, source)`` of every cell run in this kernel before the one running now."""
    history = list(getattr(getattr(shell, "history_manager", None), "input_hist_raw", None) or [])
    cells = [(f"In [{n}]", str(src)) for n, src in enumerate(history) if n > 0]
    return cells[:-1] if cells else cells  # the last entry is the cell that called check()


def _notebook_file(shell: object, folder: Path) -> Path | None:
    """The saved notebook of this kernel: as the front-end names it, else the only one here."""
    ns = getattr(shell, "user_ns", {}) or {}
    for key in _SESSION_NAMES:
        value = ns.get(key)
        if isinstance(value, str) and value.endswith(".ipynb"):
            path = Path(value) if os.path.isabs(value) else folder / value
            if path.is_file():
                return path
    env = os.environ.get("JPY_SESSION_NAME", "")
    if env.endswith(".ipynb") and Path(env).is_file():
        return Path(env)
    found = sorted(p for p in folder.glob("*.ipynb") if p.is_file())
    return found[0] if len(found) == 1 else None


def _answers(path: Path | None) -> str | None:
    """The quiz answers cell of the saved notebook (raw cells never run, so never in history)."""
    if path is None:
        return None
    from grader.ingest.submission.load import load_submission

    try:
        return load_submission(path).answers
    except GraderError:
        return None


def _rubric(path: Path) -> Rubric:
    from grader.spec.rubric.load import load_rubric

    if not path.is_file():
        raise UsageError(said("no_such_rubric_pass_2", path=path))
    key = os.path.abspath(path)  # noqa: PTH100
    mtime = path.stat().st_mtime
    cached = _RUBRICS.get(key)
    if cached is None or cached[0] != mtime:
        _RUBRICS[key] = (mtime, load_rubric(path))
    return _RUBRICS[key][1]


def _language(lang: str | None, rubric: Rubric) -> str:
    if lang:
        if lang not in _LANGS:
            raise UsageError(said("lang_use_one", lang=f"{lang!r}", langs=', '.join(_LANGS)))
        return lang
    env = os.environ.get("GRADER_LANG", "")
    if env in _LANGS:
        return env
    languages = list(rubric.report.languages or ["ja"])
    return str(languages[0])


def _checker(rubric_file: Path, level: str | None) -> WarmChecker:
    from grader.engines.warm_checker import WarmChecker

    if not rubric_file.is_file():
        raise UsageError(said("no_such_rubric_pass_2", path=rubric_file))
    key = os.path.abspath(rubric_file)  # noqa: PTH100
    checker = _CHECKER.get(key)
    if checker is None or (level is not None and checker.prefer != level):
        if checker is not None:
            checker.stop()
        checker = _CHECKER[key] = WarmChecker(rubric_file, level=level)
    return checker


def check(part: str | None = None, *, lang: str | None = None, plots: bool = False,
          rubric: str | os.PathLike[str] | None = None, level: str | None = None,
          display: bool = True) -> CheckResult | None:
    """Run the public tests on the cells run in this kernel and show the result here.

    Args:
        part: show only this part (one of the rubric's part ids, e.g. ``"part1"``).
        lang: ``"ja"`` or ``"en"`` (default: ``$GRADER_LANG``, else the rubric's first language).
        plots: also draw the plots of your functions (about a second more per check).
        rubric: the rubric file (default: found by walking up from the working folder).
        level: the sandbox level (default: the strongest available; ``$GRADER_SANDBOX``).
        display: show the result in the cell (False: only return it).

    Returns:
        The :class:`grader.engines.warm_checker.CheckResult` when ``display`` is False, else None (so the
        cell shows the result once).

    Raises:
        GraderError: only with ``display=False``; otherwise the message is shown in the cell
            (no rubric found, an unknown part, a checker that stopped), without a traceback.
    """
    try:
        result = _check(part, lang=lang, plots=plots, rubric=rubric, level=level)
    except CellsNotRun as exc:
        if not display:
            raise
        _show_not_run(exc)
        return None
    except GraderError as exc:
        if not display:
            raise
        _show_error(exc, lang)
        return None
    if not display:
        return result
    _show(result)
    return None


def _check(part: str | None, *, lang: str | None, plots: bool, rubric: str | os.PathLike[str] | None,
           level: str | None) -> CheckResult:
    from grader.ingest.find_rubric import find_rubric
    from grader.ingest.submission.notebook import notebook_submission

    shell = _shell()
    folder = Path(os.getcwd())
    rubric_file = Path(rubric) if rubric is not None else find_rubric(cwd=folder, option='notebook.check(rubric="PATH")')
    # Start the checker first: it imports torch and pytest and starts its sandbox while this
    # kernel reads the rubric and the notebook.
    checker = _checker(rubric_file, level).start()
    loaded = _rubric(rubric_file)
    parts = [p.id for p in loaded.parts]
    if part is not None and part not in parts:
        raise UsageError(said("check_no_such_part", part=f"{part!r}", parts=', '.join(parts)))
    language = _language(lang, loaded)
    nb_file = _notebook_file(shell, folder)
    cells = _executed_cells(shell) if shell is not None else []
    name = nb_file.stem if nb_file is not None else "notebook"
    sub = notebook_submission(name, cells, answers=_answers(nb_file), path=folder,
                              filename=nb_file.name if nb_file is not None else "notebook")
    # Checked before the function cells were run: one instruction, not an error per test.
    missing = _not_run(loaded, part, sub.modules[0].chunks)
    if missing:
        raise CellsNotRun(missing, language)
    return checker.check(sub, lang=language, part=part, cells=len(sub.modules[0].chunks), plots=plots)


def _show_error(exc: Exception, lang: str | None = None) -> None:
    """Why the check did not finish: in ``lang``, or in Japanese and English when none was asked."""
    from grader.i18n.messages import error_text
    from grader.report import text as _text

    langs = [lang] if lang in ("ja", "en") else ["ja", "en"]
    said = dict.fromkeys(error_text(exc, one) for one in langs)  # (the same words once)
    text = f"{_text.label('grading_failed', langs)}: " + "\n".join(said)
    try:
        from IPython.display import display
    except ImportError:
        print(text)
        return
    import html

    display({"text/plain": text,
             "text/html": f'<pre class="grader-check-error" style="color:#c92a2a">{html.escape(text)}</pre>'},
            raw=True)


def _show_not_run(exc: CellsNotRun) -> None:
    from grader.report.cell import render_not_run

    views = render_not_run(exc.functions, exc.lang)
    try:
        from IPython.display import display
    except ImportError:
        print(views["text"])
        return
    display({"text/plain": views["text"], "text/html": views["html"]}, raw=True)


def _show(result: CheckResult) -> None:
    try:
        from IPython.display import display
    except ImportError:
        print(result.views.get("text", ""))
        return
    bundle = {"text/plain": result.views.get("text", "")}
    if result.views.get("html"):
        bundle["text/html"] = result.views["html"]
    display(bundle, raw=True)


def status() -> dict[str, dict[str, object]]:
    """The warm checkers of this kernel: pids, sandbox level, checks served, starts."""
    out: dict[str, dict[str, object]] = {}
    for key, checker in _CHECKER.items():
        info = checker.info or {}
        out[key] = {
            "alive": checker.alive(),
            "checker_pid": checker.proc.pid if checker.proc is not None else None,
            "zygote_pid": info.get("zygote_pid"),
            "level": info.get("level"),
            "checks": checker.checks,
            "starts": checker.starts,
        }
    return out


def shutdown() -> None:
    """Stop every warm checker of this kernel (also done when the kernel exits)."""
    while _CHECKER:
        _, checker = _CHECKER.popitem()
        checker.stop()


atexit.register(shutdown)


# --------------------------------------------------------------------------- %grader magic

_MAGIC_USAGE = "usage: %grader [PART] [--lang ja|en] [--plots]"


def _magic(line: str) -> None:
    words = line.split()
    part: str | None = None
    lang: str | None = None
    plots = False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--plots":
            plots = True
        elif word.startswith("--lang"):
            if "=" in word:
                lang = word.split("=", 1)[1]
            elif i + 1 < len(words):
                i += 1
                lang = words[i]
            else:
                raise UsageError(_MAGIC_USAGE)
        elif re.fullmatch(r"[A-Za-z0-9_.-]+", word) and part is None:
            part = word
        else:
            raise UsageError(f"{word!r}: {_MAGIC_USAGE}")
        i += 1
    check(part, lang=lang, plots=plots)


def load_ipython_extension(shell: InteractiveShell) -> None:
    """Register ``%grader`` (``%load_ext grader.notebook``; also done on import in a kernel)."""
    # (what shell.register_magic_function does, without its functools.wraps signature)
    shell.magics_manager.register_function(_magic, magic_kind="line", magic_name="grader")


def _load_in_kernel() -> None:
    shell = _shell()
    if shell is not None:
        load_ipython_extension(shell)


_load_in_kernel()
