"""The tool holds no assignment's knowledge: no chapter's function names, constants or own mistake ids in grader/."""

from __future__ import annotations

import re

from grader.spec.assignment import assignment_of
from grader.spec.catalogue import catalogue
from grader.spec.rubric.load import load_rubric

from tests.helpers import ROOT


def _chapter_words() -> dict[str, set[str]]:
    """Per rubric: its functions, its own mistake ids and the constants its hooks define."""
    import ast

    from grader.spec.catalogue import FRAMEWORK_FILE

    words: dict[str, set[str]] = {}
    for path in sorted((ROOT / "rubrics").glob("*.yaml")):
        a = assignment_of(load_rubric(path))
        found = {f for p in a.code_parts for f in p.functions}
        found |= set(a.mistake_ids()) - set(catalogue(FRAMEWORK_FILE))
        hooks = a.rubric.plugin.hooks
        for file in sorted(hooks.parent.glob("*.py")) if hooks else []:
            for node in ast.parse(file.read_text(encoding="utf-8")).body:
                targets = node.targets if isinstance(node, ast.Assign) else []
                names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
                found |= {n.id for n in names if isinstance(n, ast.Name) and n.id.lstrip("_").isupper()
                          and len(n.id.lstrip("_")) > 3}
        words[a.id] = found
    return words


def test_no_chapter_knowledge_in_the_grader_package():
    """grader/ offers the framework: no chapter's function names, constants or own mistake ids.

    Framework ids (not-implemented, unrecognised) and the ids every chapter shares through a
    framework helper (hardcoded-output) are the framework's; torch's own functions called as
    attributes (``torch.softmax``) are torch's.
    """
    words = _chapter_words()
    assert {"masked_softmax", "mask-after-softmax", "scaling_factor", "sqrt-d-model", "GPT2_D_MODEL"} <= set().union(*words.values())
    shared = {"hardcoded-output"}
    hook_names = {"RECOGNISERS", "ORACLE", "NOTEBOOK_INTRO", "README_EXAMPLE"}  # the interface grader/kit/hooks.py defines
    hits = []
    for path in sorted((ROOT / "grader").rglob("*")):
        if not (path.is_file() and path.suffix in (".py", ".yaml", ".j2", ".ini")):
            continue
        text = path.read_text(encoding="utf-8")
        for chapter, found in sorted(words.items()):
            for w in sorted(found - shared - hook_names):
                word = re.escape(w)
                # A function as code (called, quoted, in backquotes); an id or constant anywhere.
                pattern = (rf"(?<![\w.]){word}\(|[\"'`]{word}[\"'`]" if w.isidentifier() and w.islower()
                           else rf"(?<![\w.-]){word}(?![\w-])")
                if re.search(pattern, text):
                    hits.append(f"{path.relative_to(ROOT)}: {chapter}'s {w}")
    assert [] == hits
