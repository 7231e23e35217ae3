"""Due dates, extensions and the late penalty (grader/spec/due.py), against a plain reference."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.spec.due import Extension, LatePolicyRule, due_for, late_penalty, parse_when, read_extensions, read_submitted
from grader.errors import UsageError
from grader.i18n.messages import translate

from tests.helpers import ROOT


ZONES = [timezone(timedelta(hours=h, minutes=m)) for h, m in ((9, 0), (0, 0), (-5, 0), (5, 30), (-9, -30), (14, 0))]


def reference(submitted_utc_s: int, due_utc_s: int, ext_due_utc_s: int | None, ext_days: float | None,
              score: float, top: float, per_day: float, cap: float, grace_min: int, once: bool) -> float:
    """The rule in plain arithmetic on seconds since the epoch (no datetime, no time zones)."""
    own_due = ext_due_utc_s if ext_due_utc_s is not None else due_utc_s + round((ext_days or 0) * 86400)
    late_s = submitted_utc_s - own_due
    if late_s <= grace_min * 60:
        days = 0
    else:
        days = late_s // 86400 + (1 if late_s % 86400 else 0)
    if once:
        days = min(days, 1)
    percent = min(days * per_day, cap)
    return max(0.0, score - top * percent / 100)


EPOCH = 1_780_000_000  # late 2026


@settings(max_examples=200, deadline=None)
@given(due=st.integers(0, 400 * 86400), offset=st.integers(-3 * 86400, 20 * 86400),
       near_boundary=st.booleans(), zone_due=st.sampled_from(ZONES), zone_sub=st.sampled_from(ZONES),
       ext=st.sampled_from(["none", "days", "date"]), ext_days=st.sampled_from([0.5, 1, 2, 3, 7]),
       ext_shift=st.integers(-2 * 86400, 10 * 86400), moved=st.integers(-3 * 86400, 3 * 86400),
       score=st.integers(0, 124), per_day=st.sampled_from([0, 5, 10, 25, 33.3]),
       cap=st.sampled_from([0, 20, 50, 100]), grace=st.sampled_from([0, 5, 15, 60]), once=st.booleans())
def test_the_penalty_agrees_with_a_plain_reference(due, offset, near_boundary, zone_due, zone_sub, ext, ext_days,
                                                   ext_shift, moved, score, per_day, cap, grace, once):
    """200 cases: time zones on both sides, extensions in days (which follow a moved due date) and
    to a date (which do not), exact day boundaries and the grace period's edge."""
    original_due = EPOCH + due
    due_s = original_due + moved  # the due date was moved after extensions were granted
    ext_due_s = original_due + ext_shift if ext == "date" else None
    own_due = ext_due_s if ext_due_s is not None else due_s + (round(ext_days * 86400) if ext == "days" else 0)
    if near_boundary:  # exactly on a day boundary or on the grace edge, or one second past
        offset = (offset // 86400) * 86400 + (offset % 2) + (grace * 60 if offset % 3 == 0 else 0)
    submitted_s = own_due + offset
    as_dt = lambda s, z: datetime.fromtimestamp(s, timezone.utc).astimezone(z)  # noqa: E731
    extensions = {}
    if ext == "days":
        extensions["alice"] = Extension("alice", days=float(ext_days), reason="illness")
    elif ext == "date":
        extensions["alice"] = Extension("alice", due=as_dt(ext_due_s, zone_sub), reason="accommodation")
    got_due, used = due_for("alice", as_dt(due_s, zone_due), extensions)
    assert (used is None) == (ext == "none")
    policy = LatePolicyRule(per_day_percent=per_day, max_percent=cap, grace_minutes=grace,
                            per="once" if once else "day")
    result = late_penalty(as_dt(submitted_s, zone_sub), got_due, float(score), 124.0, policy)
    expect = reference(submitted_s, due_s, ext_due_s, ext_days if ext == "days" else None, float(score), 124.0,
                       per_day, cap, grace, once)
    assert result.score == pytest.approx(expect, abs=1e-9)
    assert result.due == got_due and result.score_before == score


def test_a_due_date_needs_its_offset_in_both_languages():
    assert parse_when("2026-12-01T23:59:00+09:00", "rubric due").utcoffset() == timedelta(hours=9)
    with pytest.raises(UsageError) as exc:
        parse_when("2026-12-01T23:59:00", "rubrics/chapter07.yaml: due")
    assert "has no time zone" in str(exc.value) and "+09:00" in str(exc.value)
    assert "タイムゾーンがありません" in translate(str(exc.value), "ja")


def test_the_extension_and_submitted_files_name_the_bad_line(tmp_path):
    ok = tmp_path / "ext.csv"
    ok.write_text("student,due,days,reason\nalice,2026-12-03T12:00:00+09:00,,illness\nbob,,2,club\n", encoding="utf-8")
    got = read_extensions(ok)
    assert got["bob"].days == 2 and got["alice"].due.utcoffset() == timedelta(hours=9)
    bad = tmp_path / "bad.csv"
    bad.write_text("student,due,days,reason\nalice,,,\n", encoding="utf-8")
    with pytest.raises(UsageError, match="line 2: give either due or days for alice"):
        read_extensions(bad)
    sub = tmp_path / "sub.csv"
    sub.write_text("student,submitted\nalice,2026-12-02T00:10:00+09:00\nbob,yesterday\n", encoding="utf-8")
    with pytest.raises(UsageError, match="line 3: 'yesterday' is not a date and time") as exc:
        read_submitted(sub)
    assert "日時ではありません" in translate(str(exc.value), "ja")


def test_the_batch_s_late_step_measures_each_student_against_their_own_due_date():
    """grader.spec.due.apply_late with the times grader batch passes: the LMS's LATE flag is
    overruled by the measured lateness, and the report says submitted, due, days and why."""
    import dataclasses

    from grader.spec.due import apply_late
    from grader.spec.rubric.model import LatePolicy
    from grader.spec.rubric.load import load_rubric

    base = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    rubric = dataclasses.replace(base, due="2026-12-01T23:59:00+09:00",
                                 late=LatePolicy(penalty_percent=10, cap_percent=100, per="day", grace_minutes=15))

    def late(submitted: str, due: str, extension: str = "") -> dict:
        data = {"score": 100.0, "max_score": 124.0, "pass_mark": 60.0, "passed": True, "notes": []}
        return apply_late(data, True, rubric, {"submitted": submitted, "due": due, "extension": extension})

    on_time = late("2026-12-01T15:10:00+00:00", "2026-12-01T23:59:00+09:00")  # 00:10 JST: in the grace
    assert on_time["score"] == 100.0 and "late" not in on_time
    two_days = late("2026-12-03T00:30:00+09:00", "2026-12-01T23:59:00+09:00")  # 1 day 31 minutes late
    assert two_days["score"] == pytest.approx(100 - 2 * 12.4) and two_days["late"]["days"] == 2
    extended = late("2026-12-03T00:30:00+09:00", "2026-12-04T23:59:00+09:00", "illness (doctor's note)")
    assert extended["score"] == 100.0
    third = late("2026-12-05T00:30:00+09:00", "2026-12-04T23:59:00+09:00", "illness")  # past the grace
    assert third["late"]["extension"] == "illness" and third["late"]["days"] == 1
    assert any("2026-12-04T23:59:00+09:00" in n and "延長: illness" in n and "extension: illness" in n
               for n in third["notes"])


def test_the_instructors_csv_files_as_excel_writes_them(tmp_path):
    """CP932 (Excel's "CSV" on Japanese Windows) and UTF-8 with a BOM are read; anything else
    is refused naming the file and the fix; a bad line is named by where it is in the file,
    blank lines and a value over two lines counted."""
    cp932 = tmp_path / "cp932.csv"
    cp932.write_bytes("student,days,reason\r\n山田太郎,2,病気\r\n".encode("cp932"))
    assert read_extensions(cp932)["山田太郎"].reason == "病気"
    utf16 = tmp_path / "utf16.csv"
    utf16.write_bytes("student,days,reason\r\n山田太郎,2,病気\r\n".encode("utf-16"))
    with pytest.raises(UsageError) as exc:
        read_extensions(utf16)
    assert f"{utf16}: not text in UTF-8 or CP932; save it again as CSV UTF-8" in str(exc.value)
    assert "CSV UTF-8 で保存し直してください" in translate(str(exc.value), "ja")
    lines = tmp_path / "lines.csv"
    lines.write_text('student,days,reason\n\nalice,1,"two\nlines"\n\nbob,x,\n', encoding="utf-8")
    with pytest.raises(UsageError, match="lines.csv: line 6: days must be a number"):
        read_extensions(lines)


def test_a_student_listed_twice_in_submitted_and_an_endless_extension_are_refused(tmp_path):
    twice = tmp_path / "sub.csv"
    twice.write_text("student,submitted\nalice,2026-12-03T00:00:00+09:00\nalice,2026-12-01T00:00:00+09:00\n",
                     encoding="utf-8")
    with pytest.raises(UsageError, match="line 3: alice is listed twice; keep one line per student"):
        read_submitted(twice)
    endless = tmp_path / "ext.csv"
    for days in ("3000000", "1e308"):
        endless.write_text(f"student,days,reason\nalice,{days},x\n", encoding="utf-8")
        with pytest.raises(UsageError, match="line 2: days must be at most 3660") as exc:
            read_extensions(endless)
        assert "以下にしてください" in translate(str(exc.value), "ja")


def test_rows_of_commas_and_spaced_column_names_as_a_spreadsheet_leaves_them(tmp_path):
    """Excel keeps a row of commas alone where a row was cleared, and a header typed as
    ``student, days`` has spaces: neither is an error, and no student is made from nothing."""
    path = tmp_path / "ext.csv"
    path.write_text("student, days, reason\r\nalice,2,club\r\n,,\r\n , ,\r\n", encoding="utf-8")
    got = read_extensions(path)
    assert list(got) == ["alice"] and got["alice"].days == 2 and got["alice"].reason == "club"


def test_a_student_written_once_full_width_and_once_plain_is_listed_twice(tmp_path):
    """Ids are read as NFKC folds them, so the LMS's ``11111`` and a full-width ``１１１１１`` are one
    student: two lines for them are refused, not one silently kept."""
    path = tmp_path / "ext.csv"
    path.write_text("student,days,reason\n11111,1,a\n１１１１１,2,b\n", encoding="utf-8")
    with pytest.raises(UsageError, match="line 3: 11111 is listed twice"):
        read_extensions(path)


def test_the_readmes_late_example_does_what_the_readme_says():
    """README: ``late: {penalty_percent: 10, per: day, grace_minutes: 15, cap_percent: 80}`` takes
    10 % of the maximum for every day or part of a day past the due date and its 15 minutes'
    grace, and a late submission scores at most 80 % of the maximum: full marks an hour late keep
    80 %, not 90 %; three days late, 70 %; within the grace, nothing is taken."""
    import dataclasses

    import yaml

    from grader.spec.due import apply_late
    from grader.spec.rubric.load import load_rubric
    from grader.spec.rubric.model import LatePolicy

    example = "late: {penalty_percent: 10, per: day, grace_minutes: 15, cap_percent: 80}"
    assert example in (ROOT / "README.md").read_text(encoding="utf-8")
    due = "2026-12-01T23:59:00+09:00"
    rubric = dataclasses.replace(load_rubric(ROOT / "rubrics" / "chapter07.yaml"), due=due,
                                 late=LatePolicy(**yaml.safe_load(example)["late"]))

    def kept(submitted: str) -> float:
        report = {"score": 124.0, "max_score": 124.0, "pass_mark": 60.0, "passed": True, "notes": []}
        return float(apply_late(report, False, rubric, {"submitted": submitted, "due": due, "extension": ""})["score"])

    assert kept("2026-12-02T00:10:00+09:00") == 124.0  # within the grace
    assert kept("2026-12-02T00:59:00+09:00") == pytest.approx(0.8 * 124)  # an hour late: the cap, not 90 %
    assert kept("2026-12-04T12:00:00+09:00") == pytest.approx(0.7 * 124)  # three days: 70 %, below the cap


FAR = ("9999-12-31T23:59:00+09:00", "0001-01-01T00:00:00+09:00", "9999-12-31T23:59:59-23:59", "1969-12-31T23:59:00Z",
       "3000-01-01T00:00:00+00:00")


@pytest.mark.parametrize("when", FAR)
def test_a_date_far_in_the_future_or_past_is_refused_naming_its_file_and_line(tmp_path, when):
    """An extension to 9999-12-31, a submission time in year 1, Moodle's worksheet and the rubric's
    due: refused with the file, the line and the years allowed, in both languages; never an
    overflow later, where a student's report would take it."""
    from grader import load_rubric
    from grader.errors import RubricError
    from grader.spec.due import lms_wall_time, read_moodle_worksheet, within_years
    from tests.helpers import rubric_copy
    from tests.lms_exports import WorksheetRow, moodle_grading_worksheet

    ext = tmp_path / "ext.csv"
    ext.write_text(f"student,due,reason\nalice,2026-12-09T23:59:00+09:00,ok\nbob,{when},forever\n", encoding="utf-8")
    sub = tmp_path / "sub.csv"
    sub.write_text(f"student,submitted\n\nalice,{when}\n", encoding="utf-8")
    for path, read, line in ((ext, read_extensions, 3), (sub, read_submitted, 3)):
        with pytest.raises(UsageError) as exc:
            read(path)
        text = str(exc.value)
        assert f"{path}: line {line}: {when!r} is outside the years 1970 to 2999" in text
        assert "1970 年から 2999 年の範囲の外です" in translate(text, "ja")
    year = int(when[:4])
    if year >= 1000:  # (Moodle writes four digits)
        for lang in ("en", "ja"):
            sheet = tmp_path / f"worksheet-{lang}.csv"
            at = datetime(year, 12, 31, 23, 0) if year > 2000 else datetime(year, 1, 1, 9, 0)
            sheet.write_bytes(moodle_grading_worksheet([WorksheetRow(7, "A", "a@x", datetime(2026, 12, 1, 10, 0)),
                                                        WorksheetRow(8, "B", "b@x", at)], lang))
            with pytest.raises(UsageError, match=r"worksheet-.*\.csv: line 3: .* is outside the years 1970 to 2999"):
                read_moodle_worksheet(sheet, timezone(timedelta(hours=9)))
    assert lms_wall_time(f"{when[:4]}-12-31-23-59-59", timezone(timedelta(hours=14))) is None or 1970 <= year <= 2999
    with pytest.raises(RubricError, match=r"due: .* is outside the years 1970 to 2999"):
        load_rubric(rubric_copy(tmp_path, due=when))
    edge = datetime(2999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=9)))
    assert within_years(edge, "x", "") == edge and parse_when("1970-01-01T09:00:00+09:00", "x").year == 1970


def test_an_over_long_csv_field_is_refused_naming_the_file_and_line(tmp_path):
    """A value past the csv module's limit (or a quote never closed, which makes one of the rest of
    the file), a NUL byte in a date, a reason of 10,000 characters, a file of 65 MB: a clear error naming the
    file and the line, in both languages, never a traceback."""
    import csv

    from grader.spec.due import read_moodle_worksheet

    huge = "x" * (csv.field_size_limit() + 1)
    cases = [
        (read_extensions, f'student,days,reason\nalice,1,ok\n\nbob,2,"{huge}"\n', "line 4: a value longer than"),
        (read_extensions, 'student,days,reason\nalice,1,ok\nbob,2,"never closed\ncarol,3,x\n' + "dan,1,y\n" * 20000,
         "line 3: a value longer than"),
        (read_extensions, f"student,days,{huge}\nalice,1,x\n", "line 1: a value longer than"),
        (read_extensions, f"student,days,reason\nalice,1,{'r' * 10_000}\n", "line 2: the reason is 10000 characters"),
        (read_submitted, f"student,submitted\n{'s' * 3000},2026-12-01T10:00:00+09:00\n", "line 2: the student is 3000"),
        (read_submitted, "student,submitted\nalice,2026-12-01T10:00:00+09:00\nbob,\"2026\0\"\n",
         "line 3: '2026\\x00' is not a date and time"),
        (lambda p: read_moodle_worksheet(p, timezone.utc), f'Identifier,Last modified (submission)\n"{huge}",-\n',
         "line 2: a value longer than"),
    ]
    for n, (read, text, said_) in enumerate(cases):
        path = tmp_path / f"case{n}.csv"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(UsageError) as exc:
            read(path)
        assert f"{path}: {said_}" in str(exc.value), (n, str(exc.value)[:300])
        assert translate(str(exc.value), "ja") != str(exc.value)  # (said in Japanese too)
    big = tmp_path / "big.csv"
    big.write_bytes(b"student,days\n" + b"a,1\n" * (17 * 1024**2))
    with pytest.raises(UsageError, match="big.csv: 68 MB, larger than such a file ever is"):
        read_extensions(big)


@settings(max_examples=80, deadline=None)
@given(when=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.sampled_from(ZONES)),
       days=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10**7)),
       size=st.integers(0, 140_000), column=st.sampled_from(["student", "reason"]), form=st.sampled_from(["due", "days"]))
def test_any_date_days_or_field_size_is_read_or_refused_by_its_line_and_a_read_one_grades(when, days, size, column,
                                                                                          form):
    """Over dates from year 1 to 9999 in any zone, any number of days and any field size: the
    extensions and submission-time files are read, or refused naming the file and the line; and
    whatever is read, the batch's late step gives every student a score (never an overflow)."""
    import tempfile
    from pathlib import Path

    from grader.spec.due import EARLIEST_YEAR, LATEST_YEAR

    filler = "x" * size
    student = "alice" + (filler if column == "student" else "")
    reason = "ill" + (filler if column == "reason" else "")
    value = when.isoformat() if form == "due" else str(days)
    assigned = datetime(2026, 12, 1, 23, 59, tzinfo=timezone(timedelta(hours=9)))
    policy = LatePolicyRule(per_day_percent=10, max_percent=50, grace_minutes=10080)
    with tempfile.TemporaryDirectory() as tmp:
        ext = Path(tmp) / "ext.csv"
        ext.write_text(f"student,{form},reason\nbob,{'2026-12-05T00:00:00+09:00' if form == 'due' else '1'},x\n"
                       f"{student},{value},\"{reason}\"\n", encoding="utf-8")
        sub = Path(tmp) / "sub.csv"
        sub.write_text(f"student,submitted\nbob,2026-12-02T00:00:00+09:00\n{student},{when.isoformat()}\n",
                       encoding="utf-8")
        read = {}
        for path, reader in ((ext, read_extensions), (sub, read_submitted)):
            try:
                read[path.name] = reader(path)
            except UsageError as exc:
                assert f"{path}: line 3: " in str(exc), str(exc)[:300]
                assert translate(str(exc), "ja") != str(exc)
        in_years = EARLIEST_YEAR <= when.year <= LATEST_YEAR and EARLIEST_YEAR <= when.astimezone(timezone.utc).year <= LATEST_YEAR
        if size <= 2000 and (form == "days" and 0 <= days <= 3660 or form == "due" and in_years):
            assert "ext.csv" in read
        if size <= 2000 and in_years:
            assert "sub.csv" in read
        extensions = read.get("ext.csv", {})
        times = read.get("sub.csv", {"bob": assigned})
        for who, at in times.items():
            due, _ = due_for(who, assigned, extensions)
            late = late_penalty(at, due, 80.0, 100.0, policy)
            assert 30.0 <= late.score <= 80.0 and due.isoformat() and at.isoformat()
