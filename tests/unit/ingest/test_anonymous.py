"""Blind grading's scrub (grader/ingest/anonymous.py): a name as repr quotes it, and a student's own words."""

from __future__ import annotations

import json
import shutil
import unicodedata
import zipfile

import pytest

from tests.helpers import EXAMPLES, RUBRIC


def test_the_scrub_matches_a_name_as_repr_quotes_it_and_keeps_a_students_own_words_to_them():
    from grader.ingest.anonymous import _generic, _Scrub

    scrub = _Scrub(_generic({"scaling": "scaling.py"}))
    scrub.add("anon-aaaaaa", texts=("山田\u3000太郎",), ids=("123458",), own=("submission", "yamada_hw", "scaling.py"))
    scrub.add("anon-bbbbbb", texts=("Jane Doe",), ids=("123462",), own=("report",))
    quoted = "the name " + repr("山田\u3000太郎_123458_assignsubmission_file_") + " has no UTF-8 mark"
    assert "山田" not in scrub(quoted, "anon-aaaaaa") and "anon-aaaaaa" in scrub(quoted, "anon-aaaaaa")
    assert scrub("yamada_hw/scaling.py: a submission", "anon-aaaaaa") == "anon-aaaaaa/scaling.py: a submission"
    assert scrub("yamada_hw and the report", "anon-bbbbbb") == "yamada_hw and the anon-bbbbbb"  # own words: own texts


# --------------------------------------------------------------------------- Names: what a blind batch scrubs


def _names():
    from grader.ingest.anonymous import Names

    return Names(["山田 太郎", "Alice Quinn", "Doe, Jane", "Li Wu", "佐藤 翔"], ["723458", "tyamada", "98765"])


@pytest.mark.parametrize("text, expected", [
    # Japanese names: either order, with no space, a space, a full-width space or ・ between; in NFD too
    ("# 山田太郎", "# [name]"),
    ("# 太郎　山田 が書いた", "# [name] が書いた"),
    ("author: 山田 太郎さん", "author: [name]さん"),
    ("by " + unicodedata.normalize("NFD", "山田・太郎"), "by [name]"),
    ("山田くん", "[name]くん"),  # a part of two characters alone
    ("佐藤翔 / 翔", "[name] / 翔"),  # a one-character given name only within the whole name
    # Latin names: whole words in any case, run together in either order
    ("QUINN, Alice <alice.quinn@example.org>", "[name], [name] <[name].[name]@example.org>"),
    ("AliceQuinn and quinnalice", "[name] and [name]"),
    ("Doe Jane, jane_doe", "[name] [name], [name]_[name]"),
    ("Li and Wu", "[name] and [name]"),
    # ids: whole tokens, in any case; not inside a longer token nor a decimal number
    ("id 723458, TYAMADA, tyamada@uni", "id [id], [id], [id]@uni"),
    ("x = 0.723458 + 723458.5 + 1723458 + s723458", "x = 0.723458 + 723458.5 + 1723458 + s723458"),
])
def test_names_are_scrubbed_in_the_spellings_people_use(text, expected):
    assert _names()(text) == expected


def test_words_that_only_contain_a_name_are_left_alone():
    names = _names()
    text = "an alien list will squint at the does of li; Alicequinnish 98765432 and dough"
    assert names(text) == text
    assert names("") == ""


def test_ids_too_short_to_tell_from_numbers_and_words_are_left_alone():
    from grader.ingest.anonymous import Names

    names = Names([], ["12", "7", "ab", "2024", "bob", "yamada taro", "x 1"])
    assert names("test[12-7] ab=2024 bob 1 x") == "test[12-7] ab=[id] [id] 1 x"
    assert names("yamada and taro") == "[id] and [id]"


def test_scrub_data_leaves_the_reports_own_keys_and_scrubs_every_other_string():
    from grader.ingest.anonymous import scrub_data

    data = {"submission": "anon-aaaaaa", "content_hash": "723458", "score": 723458,
            "tests": [{"id": "hidden/test_x.py::test_y", "actual": "ValueError: Alice Quinn 723458"}],
            "notes": ["山田太郎 wrote this"], "mistakes": [{"evidence": {"raised_message": "by tyamada"}}]}
    out = scrub_data(data, _names())
    assert out == {"submission": "anon-aaaaaa", "content_hash": "723458", "score": 723458,
                   "tests": [{"id": "hidden/test_x.py::test_y", "actual": "ValueError: [name] [name] [id]"}],
                   "notes": ["[name] wrote this"], "mistakes": [{"evidence": {"raised_message": "by [id]"}}]}


def test_notebook_authors_are_read_from_a_notebook_a_folder_or_a_zip(tmp_path):
    from grader.ingest.anonymous import notebook_authors

    nb = {"cells": [], "metadata": {"authors": [{"name": "Kenji Morimoto"}, {"name": "山田 太郎"}]}}
    (tmp_path / "a.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    assert notebook_authors(tmp_path / "a.ipynb") == ["Kenji Morimoto", "山田 太郎"]
    folder = tmp_path / "folder" / "deep"
    folder.mkdir(parents=True)
    (folder / "b.ipynb").write_text(json.dumps({"metadata": {"authors": "Kato Jiro"}}), encoding="utf-8")
    (folder / "broken.ipynb").write_text('{"cells": [oops', encoding="utf-8")
    assert notebook_authors(tmp_path / "folder") == ["Kato Jiro"]
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as zf:
        zf.writestr("hw/c.ipynb", json.dumps(nb))
    assert notebook_authors(tmp_path / "c.zip") == ["Kenji Morimoto", "山田 太郎"]
    (tmp_path / "d.zip").write_bytes(b"PK\x03\x04 not a zip")
    assert notebook_authors(tmp_path / "d.zip") == [] and notebook_authors(tmp_path / "missing") == []


def test_identities_keep_the_authors_and_scrub_them_like_the_students_names(tmp_path):
    from grader.ingest.anonymous import Identities, names_of

    assert names_of(tmp_path) is None  # not a blind folder
    ids = Identities(tmp_path)
    aid = ids.id_for("Taro Yamada_723458_assignsubmission_file_", "723458", "Taro Yamada", "moodle")
    ids.also(aid, ["Kenji Morimoto"])
    ids.save()
    again = Identities.load(tmp_path)
    again.also(aid, ["Kenji Morimoto"])
    assert not again.changed  # the same authors on --resume: identities.csv stays as it was
    names = names_of(tmp_path)
    assert names is not None
    assert names("# Taro YAMADA with morimoto kenji, 723458") == "# [name] [name] with [name] [name], [id]"


def test_a_blind_discovery_lists_the_class_by_pseudonym_not_by_name(tmp_path):
    """Discovery meets entries in the order of their names; every later stage follows the list
    anonymise hands on, so it is in the order of the pseudonyms."""
    from grader.ingest.anonymous import find
    from grader.spec.assignment import assignment_of
    from grader import load_rubric

    src = tmp_path / "src"
    names = [f"student{k:02d}" for k in range(12)]
    for name in names:
        shutil.copytree(EXAMPLES / "correct", src / name)
    (src / "notes.txt").write_text("hello", encoding="utf-8")
    (src / "zz-bad.zip").write_bytes(b"not a zip")
    (src / "aa-bad.zip").write_bytes(b"not a zip")
    found = find(str(src), tmp_path / "out", assignment_of(load_rubric(RUBRIC)), anonymous=True)
    aids = [f.student_id for f in found.found]
    assert len(aids) == 12 and aids == sorted(aids) == [f.submission.name for f in found.found]
    assert [f.name for f in found.failed] == sorted(f.name for f in found.failed)
    assert [s.student_id for s in found.skipped] == sorted(s.student_id for s in found.skipped)
    real = {aid: who[0] for aid, who in found.known_as.items()}
    assert [real[a] for a in aids] != names  # (random ids: in the names' order once in 12! batches)


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
