"""Manual rubric items (rubric ``manual:``) in grader review: ticked and unticked as ledger lines of
their points (of their part or the total); a change of an item's points previewed for every
student who has it, then one ledger line each; exact totals after random sequences of edits."""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import pytest

from grader.errors import RubricError
from grader.report import ledger
from grader.review import actions
from grader.review.app import make_app
from grader.review.data import Batch
from grader.review.security import COOKIE, csrf_of
from grader.spec.fingerprint import graded_text
from grader.spec.rubric.load import load_rubric
from tests.helpers import read_report, rubric_copy
from tests.review_class import make_class

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ITEMS = [{"id": "explanation", "part": "variance", "points": 2, "title": {"en": "Explains the variance", "ja": "分散の説明"}},
         {"id": "style", "points": -1, "title": {"en": "Unreadable code", "ja": "読みにくいコード"}}]
BASE = "http://127.0.0.1:8765"


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    return make_class(tmp_path / "class", 6, rubric=rubric_copy(tmp_path)), rubric_copy(tmp_path, manual=ITEMS)


def test_the_rubric_reads_manual_items_and_refuses_wrong_ones(tmp_path: Path) -> None:
    rubric = load_rubric(rubric_copy(tmp_path, manual=ITEMS))
    assert [(m.id, m.part, m.points, m.title.ja) for m in rubric.manual] == [
        ("explanation", "variance", 2.0, "分散の説明"), ("style", None, -1.0, "読みにくいコード")]
    for bad, words in ((ITEMS[0], "must be a list"), ([ITEMS[0], ITEMS[0]], "listed twice"),
                       ([{**ITEMS[0], "part": "nope"}], "names no part"),
                       ([{**ITEMS[1], "id": f"i{i}"} for i in range(10)], "nine"),
                       ([{"id": "x", "title": {"en": "a", "ja": "あ"}}], "points")):
        with pytest.raises(RubricError) as caught:
            load_rubric(rubric_copy(tmp_path, manual=bad))
        assert words in str(caught.value) and "manual" in str(caught.value)


def test_the_items_regrade_nobody(tmp_path: Path) -> None:
    """An item's points are the ledger's: adding or editing items leaves the graded rubric as it was."""
    assert graded_text(rubric_copy(tmp_path)) == graded_text(rubric_copy(tmp_path, manual=ITEMS))


def test_an_item_ticked_and_unticked_is_a_ledger_line_each(setup: tuple[Path, Path]) -> None:
    out, rubric_path = setup
    rubric = load_rubric(rubric_path)
    batch = Batch(out, rubric, secret=b"k")
    explanation = rubric.manual[0]
    for name, ticked in (("s005-correct-5", 38.0), ("s001-divide-by-dk-1", 36.0)):  # variance 6/10; 10/10: capped
        actions.toggle_item(batch, name, explanation, head=batch.head_of(name), by="tanaka", lang="en")
        batch.refresh()
        assert batch.item_points(name, "explanation") == 2.0 and read_report(out, name)["score"] == ticked
        actions.toggle_item(batch, name, explanation, head=batch.head_of(name), by="tanaka", lang="en")
        batch.refresh()
        assert batch.item_points(name, "explanation") is None and read_report(out, name)["score"] == 36.0
    lines = ledger.read(out)
    assert [(e.op, e.part, e.points, (e.note or {}).get("item")) for e in lines] == [
        ("adjust", "variance", 2.0, "explanation"), ("adjust", "variance", -2.0, "explanation")] * 2
    assert "Explains the variance" in lines[0].reason


def test_a_change_of_points_is_previewed_then_written_once_per_student(setup: tuple[Path, Path]) -> None:
    out, rubric_path = setup
    rubric = load_rubric(rubric_path)
    app, keys = make_app(out, rubric, port=8765, by="tanaka", lang="en")
    c = TestClient(app, base_url=BASE)  # type: ignore[arg-type]
    c.get("/login?token=" + keys.launch_url().split("token=")[1])
    csrf = csrf_of(keys.secret, c.cookies[COOKIE])
    post = lambda path, **data: c.post(path, data={"csrf": csrf, **data}, headers={"origin": BASE},  # noqa: E731
                                       follow_redirects=False)
    batch = Batch(out, rubric, secret=keys.secret)
    for name in ("s000-correct-0", "s002-sqrt-d-model-2", "s004-correct-4"):  # the style item, by its key on the page
        page = c.get(f"/s/{batch.key_of(name)}?lang=en").text
        head = re.search(r'name="head" value="(\d+)"', page).group(1)  # type: ignore[union-attr]
        assert "2. ☐ Unreadable code (-1)" in page
        assert post(f"/s/{batch.key_of(name)}/item", head=head, item="style").status_code == 303
    before = len(ledger.read(out))
    preview = post("/items/style/preview?lang=en", points="-3")
    assert preview.status_code == 200
    rows = re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">([^<]+)</td><td class=\"num\">([^<]+)</td>"
                      r"<td class=\"num\">([^<]+)</td></tr>", preview.text)
    assert rows == [("s000-correct-0", "-1 → -3", "39", "37"), ("s002-sqrt-d-model-2", "-1 → -3", "35", "33"),
                    ("s004-correct-4", "-1 → -3", "35", "33")]
    assert len(ledger.read(out)) == before  # a preview writes nothing
    heads = re.search(r'name="heads" value="([^"]*)"', preview.text).group(1)  # type: ignore[union-attr]
    assert post("/items/style/apply?lang=en", points="-3", heads=heads).status_code == 303
    written = ledger.read(out)[before:]
    assert [(e.submission, e.points, (e.note or {}).get("points")) for e in written] == [
        ("s000-correct-0", -2.0, -3.0), ("s002-sqrt-d-model-2", -2.0, -3.0), ("s004-correct-4", -2.0, -3.0)]
    assert [read_report(out, n)["score"] for n in ("s000-correct-0", "s002-sqrt-d-model-2", "s004-correct-4")] == [
        37.0, 33.0, 33.0]
    assert "-3" in c.get("/items?lang=en").text
    # a stale preview: someone ticked the item for another student since; nothing is written
    page = c.get(f"/s/{batch.key_of('s001-divide-by-dk-1')}?lang=en").text
    head = re.search(r'name="head" value="(\d+)"', page).group(1)  # type: ignore[union-attr]
    post(f"/s/{batch.key_of('s001-divide-by-dk-1')}/item", head=head, item="style")
    count = len(ledger.read(out))
    assert post("/items/style/apply?lang=en", points="-1", heads=heads).status_code == 409
    assert len(ledger.read(out)) == count


def test_exact_totals_after_random_sequences_of_item_edits(setup: tuple[Path, Path]) -> None:
    out, rubric_path = setup
    rubric = load_rubric(rubric_path)
    batch = Batch(out, rubric, secret=b"k")
    rng = random.Random(7)
    names = sorted(batch.reports)[2:6]  # (s005: variance 6/10, where the item's points are not capped)
    worth = {m.id: float(m.points) for m in rubric.manual}
    given: dict[tuple[str, str], float] = {}
    for _ in range(40):
        batch.refresh()
        item = rng.choice(rubric.manual)
        if rng.random() < 0.25:
            points = float(rng.randint(-3, 3))
            heads = {n: batch.head_of(n) for n in names}
            actions.repoint_item(batch, item, points, heads=heads, by="t", lang="en")
            worth[item.id] = points
            for key in given:
                if key[1] == item.id:
                    given[key] = points
        else:
            name = rng.choice(names)
            actions.toggle_item(batch, name, item, head=batch.head_of(name), by="t", lang="en")
            if (name, item.id) in given:
                del given[(name, item.id)]
            else:
                given[(name, item.id)] = worth[item.id]
    batch.refresh()
    for name in names:
        for m in rubric.manual:
            assert batch.item_points(name, m.id) == given.get((name, m.id)), (name, m.id)
        data = read_report(out, name)
        auto = float((data.get("adjustment") or {}).get("automatic_score", data["score"]))
        base = 6.0 if name.endswith("-5") else 10.0  # the automatic score of variance (tests/review_class.py)
        explained = min(max(base + given.get((name, "explanation"), 0.0), 0.0), 10.0)
        assert data["score"] == pytest.approx(auto - base + explained + given.get((name, "style"), 0.0)), name
    assert ledger.verify(out) == len(ledger.read(out))
