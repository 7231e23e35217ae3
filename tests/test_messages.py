"""One home per sentence: every sentence and label the grader writes has its Japanese beside it."""

from __future__ import annotations

import re
import string

import pytest

from grader import messages
from grader.lms import REASONS, reason
from grader.report import _text

_SLOTS = string.Formatter()


def _slots(text: str) -> set[str]:
    return {name for _, name, _, _ in _SLOTS.parse(text) if name}


@pytest.mark.parametrize("key", sorted(REASONS))
def test_every_keyed_sentence_renders_in_both_languages(key: str) -> None:
    entry = REASONS[key]
    assert set(entry) == {"en", "ja"}, key
    assert _slots(entry["en"]) == _slots(entry["ja"]), key
    slots = {name: f"<{name}>" for name in _slots(entry["en"])}
    ja, en = reason(key, ("ja",), **slots), reason(key, ("en",), **slots)
    assert ja and en and ja != en
    assert not re.search(r"[A-Za-z]{4,} [a-z]{3,}", re.sub(r"<\w+>", "", ja)), ja  # no English sentence left
    assert messages.translate(en, "ja") == ja  # a stored English reason reads back in Japanese


def test_every_sentence_has_japanese_with_the_same_slots() -> None:
    bad = [en for en, ja in messages.table().items() if not ja.strip() or _slots(en) != _slots(ja)]
    assert bad == []


def test_a_sentence_without_japanese_is_caught() -> None:
    """The check above can fail."""
    table = {"a sentence with {x}": ""}
    assert [en for en, ja in table.items() if not ja.strip() or _slots(en) != _slots(ja)] == ["a sentence with {x}"]


def test_every_label_has_both_languages() -> None:
    labels = _text.LABELS
    assert [key for key, words in labels.items() if set(words) != {"en", "ja"} or not all(words.values())] == []
    plots = _text.PLOT_WORDS  # language first
    assert set(plots["en"]) == set(plots["ja"]) and all(plots["ja"].values())


def test_one_word_per_concept_in_japanese() -> None:
    """A part is 小問 and a mistake is 間違い wherever the grader names them."""
    from grader.report.terminal import WORDS
    from grader.summary import TEXT

    assert WORDS["ja"]["part"] == TEXT["ja"]["part"] == _text.LABELS["part"]["ja"] == "小問"
    written = " ".join([*TEXT["ja"].values(), *(w["ja"] for w in _text.LABELS.values()), *_text.PLOT_WORDS["ja"].values()])
    assert "ミス" not in written and "誤り" not in written and "課題ごと" not in written


def test_batch_reasons_read_in_japanese() -> None:
    """What discovery writes for an entry it cannot grade is shown in Japanese in a Japanese page."""
    said = messages.translate("not graded: " + reason("no_work", ("en",), files="masking.py"), "ja")
    assert said == "採点していません: masking.py・answers.yaml・ノートブック・zip のどれも含まれていません"
