"""The Gradescope autograder: ``autograder.zip`` with ``setup.sh`` and ``run_autograder``.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once when it builds
the image, and ``run_autograder`` for each submission (files in ``/autograder/submission``);
the script must leave ``/autograder/results/results.json``. Ours runs full grading (public and
hidden suites) with ``grader grade --format gradescope``. If the grader itself cannot run, the
script still writes a results.json with a visible "grading did not finish" entry, so the
student sees a message rather than a blank page.

``AUTOGRADER_ROOT`` (default ``/autograder``) moves the whole layout, which is how the tests
run the script against a simulated Gradescope folder; ``AUTOGRADER_PYTHON`` picks the
interpreter (default ``python3``).

Gradescope runs ``run_autograder`` as root. With namespaces (bubblewrap) the student's code
sees none of the course files; where they cannot be built, the rlimits sandbox runs it as
the unprivileged user ``nobody`` (or the grader refuses to grade, where that user cannot read
Python: ``setup.sh`` installs it where every user can, and checks) and the script first makes
``source/`` and ``results/`` root-only. :func:`sandbox_note` says which level this machine gets and how to check it on
Gradescope (each results.json carries ``extra_data.sandbox``).

Example::

    zip_path = build_autograder(load_rubric("rubrics/chapter07.yaml"), "dist/gradescope")
"""

from __future__ import annotations

import json
import stat
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from grader.install import TORCH_CPU_INSTALL
from grader.package_data import PACKAGE_DIR
from grader.i18n.messages import both, said

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

_SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".git", ".venv"}

SETUP_SH = """\
#!/usr/bin/env bash
# Runs once when Gradescope builds the autograder image.
set -euo pipefail
# Python, torch and the grader go where every user can read them (the system's folders, files
# 0644): without namespaces, student code runs as the unprivileged user nobody, who must be
# able to import them; the grader refuses to grade otherwise.
umask 022
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip bubblewrap >/dev/null
cd /autograder/source
# The CPU build of torch from PyTorch's CPU index: the default index gives the CUDA build.
python3 -m pip install --break-system-packages {torch} || python3 -m pip install {torch}
python3 -m pip install --break-system-packages . || python3 -m pip install .
# Fail the image build now, not each submission later, if nobody cannot import them.
if ! (cd / && runuser -u nobody -- "$(command -v python3)" -I -c "import numpy, torch, fractions"); then
  echo "setup.sh: the user nobody cannot import numpy and torch; install them where every user can read them" >&2
  exit 1
fi
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Runs for every submission: full grading, results in $ROOT/results/results.json.
set -u
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{AUTOGRADER_PYTHON:-python3}}"
SOURCE="$ROOT/source"
SUBMISSION="$ROOT/submission"
RESULTS="$ROOT/results"
mkdir -p "$RESULTS"
cd "$SOURCE"
export PYTHONPATH="$SOURCE${{PYTHONPATH:+:$PYTHONPATH}}"

# Gradescope runs this as root. Where bubblewrap cannot build namespaces (Docker's default
# profile often forbids them) the grader runs student code as the unprivileged user nobody, or
# refuses to grade where that user cannot read Python: the course files (reference, hidden
# suites, rubric, the grader itself) and the results are made root-only, so that user can
# neither read nor write them.
if [ "$(id -u)" = 0 ]; then
  chmod -R go-rwx "$SOURCE" "$RESULTS"
fi

# A notebook or a zip uploaded on its own is graded as that file.
TARGET="$SUBMISSION"
shopt -s nullglob
singles=("$SUBMISSION"/*.ipynb "$SUBMISSION"/*.zip)
if [ ! -e "$SUBMISSION/{first_file}" ] && [ "${{#singles[@]}}" -eq 1 ]; then
  TARGET="${{singles[0]}}"
fi

{variant_lines}"$PYTHON" -m grader grade "$TARGET" --rubric "{rubric}" --format gradescope \\
  --out "$RESULTS/results.json"{variant_args} 2>"$RESULTS/grader-stderr.txt"
status=$?
if [ "$status" -ge 2 ] || [ ! -s "$RESULTS/results.json" ]; then
  "$PYTHON" - "$RESULTS" "$status" <<'PY'
import json, pathlib, sys
results = pathlib.Path(sys.argv[1])
err = (results / "grader-stderr.txt").read_text(encoding="utf-8", errors="replace")[-4000:]
(results / "results.json").write_text(json.dumps({{
    "score": 0.0,
    "output": "{failed}",
    "stdout_visibility": "hidden",
    "tests": [
        {{"name": "{failed}", "score": 0.0, "max_score": 0.0,
         "status": "failed", "visibility": "visible",
         "output": "The autograder could not grade this submission; your instructor has been shown why."}},
        {{"name": "grader error (instructors only)", "score": 0.0, "max_score": 0.0, "status": "failed",
         "visibility": "hidden", "output": "exit status " + sys.argv[2] + "\\n" + err}},
    ],
}}, ensure_ascii=False, indent=2), encoding="utf-8")
PY
fi
exit 0
"""


def _files(root: Path, rubric: Rubric) -> list[Path]:
    """The course files the autograder needs: package, rubric, suites, reference, stubs."""
    wanted = [PACKAGE_DIR, Path(rubric.file).resolve()]
    wanted += [Path(s.path).resolve() for s in rubric.suites]
    wanted += [Path(rubric.exercises).resolve()]
    if rubric.reference is not None:
        wanted.append(Path(rubric.reference).resolve())
    from grader.spec.assignment import assignment_of

    wanted += assignment_of(rubric).plugin_paths(instructor=True)
    for extra in ("pyproject.toml", "setup.py", "README.md"):
        if (root / extra).exists():
            wanted.append(root / extra)
    out: list[Path] = []
    for item in wanted:
        items = [item] if item.is_file() else sorted(p for p in item.rglob("*") if p.is_file())
        out += [p for p in items if not _SKIP_PARTS & set(p.parts) and p.suffix != ".pyc"]
    return sorted(set(out))


#: With per-student variants: the student's id (Gradescope's ``sid``) from the submission's metadata,
#: for ``grader grade --student`` (which finds their variant in the roster file of the zip).
VARIANT_LINES = """\
SID="$("$PYTHON" -c 'import json, sys
users = json.load(open(sys.argv[1], encoding="utf-8")).get("users") or [{{}}]
print(str(users[0].get("sid") or "").strip())' "$ROOT/submission_metadata.json" 2>/dev/null)"
"""


def build_autograder(rubric: Rubric, outdir: str | Path, *, variants: dict[str, dict[str, object]] | None = None) -> Path:
    """Write ``outdir/autograder.zip`` for ``rubric``; returns its path.

    ``variants`` (``grader gradescope --variants ROSTER``): each student's variant by LMS id, written
    beside the rubric (``<assignment>.roster-variants.json``; never the course secret); each
    submission is then graded with the variant of the ``sid`` Gradescope gives it."""
    from grader.errors import UsageError

    rubric_file = Path(rubric.file).resolve()
    root = rubric_file.parent.parent
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "autograder.zip"
    first_file = rubric.parts[0].file if rubric.parts else "answers.yaml"
    scripts = {
        "setup.sh": SETUP_SH.format(torch=TORCH_CPU_INSTALL),
        "run_autograder": RUN_AUTOGRADER.format(failed=both("grading_failed"), rubric=rubric_file.relative_to(root).as_posix(),
                                                first_file=first_file,
                                                variant_lines=VARIANT_LINES.format() if variants is not None else "",
                                                variant_args=' --student "$SID"' if variants is not None else ""),
    }
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in scripts.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, text)
        for path in _files(root, rubric):
            try:
                rel = path.relative_to(root)
            except ValueError:
                if PACKAGE_DIR in path.parents:
                    rel = Path("grader") / path.relative_to(PACKAGE_DIR)
                else:
                    raise UsageError(said("must_inside_course_repository", path=path, repo=root)) from None
            zf.write(path, rel.as_posix())
        if variants is not None:
            from grader.spec.variants import ROSTER_SUFFIX

            roster = rubric_file.relative_to(root).with_name(rubric.assignment + ROSTER_SUFFIX)
            zf.writestr(roster.as_posix(), json.dumps(variants, ensure_ascii=False, indent=1) + "\n")
    return target


def sandbox_note(lang: str = "en") -> str:
    """What isolation the autograder will get, and how to check it on Gradescope, in ``lang``."""
    from grader.i18n.messages import say
    from grader.sandbox.level import choose_level

    level, warning = choose_level(allow_weak=True)
    return say("gradescope_sandbox", lang, level=f"{level}" + (f" ({warning})" if warning else ""))
