"""Blind grading's scrub (grader/ingest/anonymous.py): a name as repr quotes it, and a student's own words."""

from __future__ import annotations





def test_the_scrub_matches_a_name_as_repr_quotes_it_and_keeps_a_students_own_words_to_them():
    from grader.ingest.anonymous import _generic, _Scrub

    scrub = _Scrub(_generic({"scaling": "scaling.py"}))
    scrub.add("anon-aaaaaa", texts=("山田\u3000太郎",), ids=("123458",), own=("submission", "yamada_hw", "scaling.py"))
    scrub.add("anon-bbbbbb", texts=("Jane Doe",), ids=("123462",), own=("report",))
    quoted = "the name " + repr("山田\u3000太郎_123458_assignsubmission_file_") + " has no UTF-8 mark"
    assert "山田" not in scrub(quoted, "anon-aaaaaa") and "anon-aaaaaa" in scrub(quoted, "anon-aaaaaa")
    assert scrub("yamada_hw/scaling.py: a submission", "anon-aaaaaa") == "anon-aaaaaa/scaling.py: a submission"
    assert scrub("yamada_hw and the report", "anon-bbbbbb") == "yamada_hw and the anon-bbbbbb"  # own words: own texts


def test_a_damaged_identities_file_is_refused_naming_its_line(tmp_path):
    """identities.csv with a value past the csv module's limit (a quote never closed): an error
    naming the file and the line, never a traceback."""
    import pytest

    from grader.errors import UsageError
    from grader.ingest.anonymous import FILE, Identities

    (tmp_path / FILE).write_text('anonymous_id,student_id,name,lms,entry\r\nanon-aaaaaa,1,A,,a\r\nanon-bbbbbb,2,"B'
                                 + "x" * 200_000 + ",,b\r\n", encoding="utf-8")
    with pytest.raises(UsageError, match=rf"{FILE}: line 3: a value longer than \d+ characters"):
        Identities.load(tmp_path)
