"""Words the writers share: bilingual labels, status names, number formatting."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from grader.report.model import CaseOutcome, GradeReport, Mistake, Status

LABELS: dict[str, dict[str, str]] = {
    "report": {"en": "Grading report", "ja": "採点結果"},
    "score": {"en": "Score", "ja": "得点"},
    "part": {"en": "Part", "ja": "小問"},
    "test": {"en": "Test", "ja": "テスト"},
    "tests": {"en": "Tests", "ja": "テスト"},
    "status": {"en": "Status", "ja": "結果"},
    "points": {"en": "Points", "ja": "点数"},
    "mistakes": {"en": "What went wrong", "ja": "見つかった間違い"},
    "errors": {"en": "Problems while grading", "ja": "採点中の問題"},
    "notes": {"en": "Notes", "ja": "補足"},
    "adjustments": {"en": "Adjustments by hand", "ja": "手作業による得点の調整"},
    # the gradebook page (grader/gradebook_view.py): gradebook.csv's columns and its legend
    "gb_title": {"en": "Gradebook", "ja": "成績表"},
    "gb_counts": {"en": "{n} rows; {adjusted} adjusted by hand; {ungraded} without a grade (the reason is in the row).",
                  "ja": "{n} 行。手作業で調整した行 {adjusted}、点数のない行 {ungraded}（理由はその行にあります）。"},
    "gb_adjusted": {"en": "adjusted by hand", "ja": "手作業で調整"},
    "gb_ungraded": {"en": "no grade", "ja": "点数なし"},
    "gb_submission": {"en": "Submission", "ja": "提出物"},
    "gb_student_id": {"en": "Student ID", "ja": "学生 ID"},
    "gb_name": {"en": "Name", "ja": "氏名"},
    "gb_score": {"en": "Final score", "ja": "最終得点"},
    "gb_automatic": {"en": "Automatic score", "ja": "自動採点の得点"},
    "gb_adjustment": {"en": "Adjustment", "ja": "調整"},
    "gb_max": {"en": "Out of", "ja": "満点"},
    "gb_passed": {"en": "Passed", "ja": "合否"},
    "gb_yes": {"en": "passed", "ja": "合格"},
    "gb_no": {"en": "not passed", "ja": "不合格"},
    "gb_late": {"en": "Late penalty", "ja": "遅延による減点"},
    "gb_reasons": {"en": "Why adjusted", "ja": "調整の理由"},
    "gb_problems": {"en": "Problems", "ja": "問題"},
    "gb_flags": {"en": "Flags", "ja": "注意"},
    "passed": {"en": "passed", "ja": "合格"},
    "below": {"en": "below the pass mark", "ja": "合格点未満"},
    # a passing score with the rubric's central mistake (``central: true``): never a plain "passed"
    "passed_but": {"en": "passed, but with the central mistake {ids}",
                   "ja": "合格。ただし核心の間違い {ids} があります"},
    "central_title": {"en": "Passed, but with the chapter's central mistake: fix it first",
                      "ja": "合格ですが、この章の核心の間違いがあります。まず直してください"},
    "pass_mark": {"en": "Pass mark", "ja": "合格点"},
    "expected": {"en": "expected", "ja": "期待値"},
    "actual": {"en": "got", "ja": "実際の値"},
    "plots": {"en": "Your functions, plotted", "ja": "あなたの関数のグラフ"},
    "no_plots": {"en": "No plot data in this report.", "ja": "このレポートにはグラフ用のデータがありません。"},
    "sandbox": {"en": "Sandbox", "ja": "サンドボックス"},
    "weak": {"en": "Warning", "ja": "警告"},
    "output": {"en": "Your code printed", "ja": "コードの出力"},
    "submission": {"en": "submission", "ja": "提出物"},
    "mistake_ids": {"en": "mistakes", "ja": "間違い"},
    "seed": {"en": "seed", "ja": "シード"},
    "grading_failed": {"en": "Grading did not finish", "ja": "採点を完了できませんでした"},
    # the notebook's check cell and `grader check --watch` (grader/report/cell.py)
    "check": {"en": "Check (public tests)", "ja": "チェック（公開テスト）"},
    "failing": {"en": "Tests not passed", "ja": "合格していないテスト"},
    "all_passed": {"en": "All {n} public tests passed.", "ja": "公開テスト {n} 件すべてに合格しました。"},
    "some_passed": {"en": "{n} of {total} public tests passed.", "ja": "公開テスト {total} 件中 {n} 件に合格しました。"},
    "hidden_more": {"en": "{n} more tests at grading.", "ja": "採点時には、さらに {n} 件のテストを実行します。"},
    "hidden_some": {"en": "More tests at grading.", "ja": "採点時には、さらにテストを実行します。"},
    "graded_cells": {"en": "Graded: the cells run in this kernel ({n}).",
                     "ja": "採点対象: このカーネルで実行したセル（{n} 個）。"},
    "not_run": {"en": "Run the cells that define these functions first, then run this check again:",
                "ja": "先に、次の関数を定義しているセルを実行してから、もう一度このチェックを実行してください:"},
    "not_run_how": {"en": "The check grades only the cells run in this kernel. In Jupyter, select this cell and"
                          " choose Run ▸ Run All Above Selected Cell (or run each cell with Shift+Enter).",
                    "ja": "チェックは、このカーネルで実行したセルだけを採点します。Jupyter では、このセルを選んで"
                          "「Run ▸ Run All Above Selected Cell」を選ぶか、各セルを Shift+Enter で実行してください。"},
    "level_strong": {"en": "namespaces (the strongest level)", "ja": "namespaces（最も強いレベル）"},
    "now_passing": {"en": "now passes", "ja": "合格になりました"},
    "now_failing": {"en": "no longer passes", "ja": "不合格になりました"},
    "found": {"en": "mistake found", "ja": "間違いを検出"},
    "fixed": {"en": "mistake fixed", "ja": "間違いが直りました"},
    "score_word": {"en": "score", "ja": "得点"},
    "unchanged": {"en": "no change", "ja": "変化なし"},
    "watching": {"en": "Watching {what} (Ctrl-C to stop); checked in {s:.2f} s.",
                 "ja": "{what} を監視しています（Ctrl-C で終了）。チェック {s:.2f} 秒。"},
    "rechecked": {"en": "{file} saved: checked again in {s:.2f} s.",
                  "ja": "{file} が保存されました: {s:.2f} 秒で再チェックしました。"},
}

STATUS_WORDS: dict[Status, dict[str, str]] = {
    Status.PASSED: {"en": "passed", "ja": "合格"},
    Status.FAILED: {"en": "failed", "ja": "不合格"},
    Status.ERROR: {"en": "error", "ja": "エラー"},
    Status.TIMEOUT: {"en": "timeout", "ja": "時間切れ"},
    Status.SKIPPED: {"en": "skipped", "ja": "スキップ"},
}

STATUS_MARKS = {
    Status.PASSED: "✅", Status.FAILED: "❌", Status.ERROR: "⚠️", Status.TIMEOUT: "⏱️",
    Status.SKIPPED: "➖",
}


def sentence(text: str, langs: Sequence[str]) -> str:
    """One of the grader's own sentences (a note, a problem) in every language of ``langs``."""
    from grader.messages import translate

    return " / ".join(dict.fromkeys(translate(text, x) for x in langs)) or text


#: Installed fonts with Japanese glyphs, used only if the packaged one cannot be had.
_JA_FONTS = ("IPAexGothic", "IPAGothic", "IPAPGothic", "Noto Sans CJK JP", "Noto Sans JP",
             "TakaoGothic", "VL Gothic", "Hiragino Sans", "Yu Gothic", "MS Gothic")


@functools.lru_cache(maxsize=1)
def packaged_ja_font() -> str | None:
    """The family name of the Japanese font the ``matplotlib-fontja`` package ships
    (IPAexGothic), registered with matplotlib for this process; None without the package.

    The font file is added directly (``addfont``), so it works on any OS with no system font
    and no rebuilt font cache. The package is found, not imported: its import would change
    matplotlib's global settings.
    """
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("matplotlib_fontja")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for ttf in sorted((Path(folder) / "fonts").glob("*.ttf")):
            from matplotlib import font_manager

            font_manager.fontManager.addfont(str(ttf))
            return str(font_manager.FontProperties(fname=str(ttf)).get_name())
    return None


def plot_style(lang: str) -> dict[str, Any]:
    """matplotlib rc settings for plots labelled in ``lang``: a font that has its glyphs."""
    if lang != "ja":
        return {}
    fonts = [packaged_ja_font()]
    if fonts[0] is None:
        from matplotlib import font_manager

        have = {f.name for f in font_manager.fontManager.ttflist}
        fonts = [f for f in _JA_FONTS if f in have]
    return {"font.family": "sans-serif", "font.sans-serif": [*fonts, "DejaVu Sans"]} if fonts else {}


#: Words on the grader's own plots (the class summary), per language. An assignment's figures
#: carry their own words (its hooks).
PLOT_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "score_max": "score (max {top})", "submissions": "submissions",
        "score_distribution": "Score distribution", "passing": "% of submissions passing",
        "pass_rate": "Pass rate per test (lowest {shown} of {total})",
        "no_mistake": "no known mistake recognised",
        "mistake_counts": "How often each mistake id occurred",
    },
    "ja": {
        "score_max": "得点（満点 {top}）", "submissions": "提出物の数",
        "score_distribution": "得点の分布", "passing": "合格した提出物の割合（%）",
        "pass_rate": "テストごとの合格率（全 {total} 件のうち低い方から {shown} 件）",
        "no_mistake": "既知の間違いは見つかりませんでした",
        "mistake_counts": "間違いの ID ごとの件数",
    },
}


def plot_word(key: str, lang: str, **slots: Any) -> str:
    words = PLOT_WORDS.get(lang) or PLOT_WORDS["en"]
    return words[key].format(**slots)


def order(lang: str, languages: Sequence[str]) -> list[str]:
    """The languages to show, ``lang`` first (if the rubric allows it)."""
    langs = [lang] if lang in languages else []
    return langs + [x for x in languages if x not in langs] or [lang]


def label(key: str, langs: Sequence[str], sep: str = " / ") -> str:
    """A label in every language of ``langs``, e.g. ``得点 / Score``."""
    words = LABELS[key]
    return sep.join(dict.fromkeys(words[x] for x in langs if x in words))


def pick(text: dict[str, str], langs: Sequence[str]) -> str:
    """The first of ``langs`` that ``text`` has; any language it has otherwise."""
    for x in langs:
        if text.get(x):
            return text[x]
    return next(iter(text.values()), "")


def each(text: dict[str, str], langs: Sequence[str]) -> list[str]:
    """``text`` in every language of ``langs`` it has, without repeats."""
    return list(dict.fromkeys(text[x] for x in langs if text.get(x)))


def num(x: float) -> str:
    """A score as people write it: ``8``, ``2.5``."""
    return f"{x:g}"


def title_of(t: CaseOutcome, langs: Sequence[str]) -> str:
    """The test's title plus its parameters (``[768-12]``), or its id."""
    title = pick(t.title, langs) or t.id
    if t.title and t.id.endswith("]") and "[" in t.id:
        title += " [" + t.id.rsplit("[", 1)[1]
    return title


def central(report: GradeReport) -> list[Mistake]:
    """The rubric's central mistakes found in ``report`` (``central: true``), in report order."""
    return [m for m in report.mistakes if m.central]


def passed_but(report: GradeReport) -> list[Mistake]:
    """The central mistakes of a *passing* report: what turns "passed" into "passed, but …"."""
    return central(report) if report.passed else []


def verdict(report: GradeReport, langs: Sequence[str], quote: str = "") -> str:
    """``passed`` / ``below the pass mark``, or ``passed, but with the central mistake X``
    (``quote`` wraps each id, e.g. a backtick for Markdown)."""
    but = passed_but(report)
    if but:
        ids = ", ".join(f"{quote}{m.id}{quote}" for m in but)
        return " / ".join(dict.fromkeys(LABELS["passed_but"][x].format(ids=ids) for x in langs
                                        if x in LABELS["passed_but"]))
    return label("passed" if report.passed else "below", langs)


def languages_of(report: GradeReport, options: Any) -> list[str]:
    configured = getattr(options, "languages", None) if options is not None else None
    return list(configured or report.languages or ["en"])


#: The adjustments section (grader.ledger): one wording for every writer.
ADJUST_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "total": "Automatic score {auto}; adjusted by {delta}; final score {final}.",
        "points": "{sign}{points} points", "set": "score set to {set}",
        "entry": "#{n} {change} ({where}): {reason} (by {by}, {at})",
        "whole": "total", "part": "part {part}",
        "review": "#{n} needs review, not applied: it was made against an automatic score of {against}, "
                  "which is now {now}",
    },
    "ja": {
        "total": "自動採点の得点 {auto}、調整 {delta}、最終得点 {final}。",
        "points": "{sign}{points} 点", "set": "得点を {set} に設定",
        "entry": "#{n} {change}（{where}）: {reason}（{by}、{at}）",
        "whole": "合計", "part": "小問 {part}",
        "review": "#{n} は要確認で、適用していません: 自動採点の得点 {against} に対する調整ですが、"
                  "その得点はいま {now} です",
    },
}


def adjustment_lines(report: GradeReport, langs: Sequence[str]) -> list[str]:
    """The adjustments of ``report`` as plain lines (each in every language of ``langs``);
    the reason is shown as the instructor wrote it. Empty when there is none."""
    adj = report.adjustment
    if not adj:
        return []

    def one(key: str, **slots: Any) -> str:
        return " / ".join(dict.fromkeys(ADJUST_WORDS[x][key].format(**slots) for x in langs if x in ADJUST_WORDS)
                          or [ADJUST_WORDS["en"][key].format(**slots)])

    def delta(x: float) -> str:
        return f"{x:+g}"

    lines = [one("total", auto=num(float(adj["automatic_score"])), delta=delta(float(adj["delta"])),
                 final=num(float(adj["score"])))]
    for e in adj.get("entries", []):
        if e.get("status") == "review":
            lines.append(one("review", n=e["n"], against=num(float(e["against"] or 0)),
                             now="—" if e.get("now") is None else num(float(e["now"]))))
            continue
        words = [x for x in langs if x in ADJUST_WORDS] or ["en"]
        said = []
        for x in words:
            w = ADJUST_WORDS[x]
            change = (w["set"].format(set=num(float(e["set"]))) if e.get("set") is not None else
                      w["points"].format(sign="+" if float(e["points"]) >= 0 else "-",
                                         points=num(abs(float(e["points"])))))
            where = w["whole"] if e.get("part") is None else w["part"].format(part=e["part"])
            said.append(w["entry"].format(n=e["n"], change=change, where=where, reason=e.get("reason", ""),
                                          by=e.get("by", ""), at=e.get("at", "")))
        lines.append(" / ".join(dict.fromkeys(said)))
    return lines
