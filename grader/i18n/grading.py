"""What grader/grading/ says, in English and in Japanese.

Its sentences: grading one submission: answers.yaml, the tests, the diagnosis.

Every key here is said by code of grader/grading/ (the comment above each group names the modules of
grader/grading/ that say it). A sentence that code of two areas says is kept once, in the table of
the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table
to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- grading one submission (runner.py, diagnosis.py, collector.py) -------------------------------
    "answers_yaml_larger_than": M(
        "answers.yaml is larger than {kib} KiB; it was not read",
        "answers.yaml が {kib} KiB を超えているため、読み込みませんでした"),
    "answers_yaml_valid_yaml": M(
        "answers.yaml is not valid YAML (line {line}, column {column}): {problem}",
        "answers.yaml は正しい YAML ではありません（{line} 行目、{column} 列目）: {problem}"),
    "answers_yaml_valid_yaml_2": M(
        "answers.yaml is not valid YAML: {problem}",
        "answers.yaml は正しい YAML ではありません: {problem}"),
    "answers_yaml_could_read": M(
        "answers.yaml could not be read ({why}); write each answer as a plain number or quoted text",
        "answers.yaml を読み取れませんでした（{why}）。答えはそれぞれ、ただの数か引用符で囲んだ文字列で書いてください"),
    "answers_yaml_must_map": M(
        "answers.yaml must map question ids to answers",
        "answers.yaml には「問題の id: 答え」の形で書いてください"),
    "answers_yaml_too_deeply": M(
        "answers.yaml is too deeply nested or too large; it was not read",
        "answers.yaml の入れ子が深すぎるか大きすぎるため、読み込みませんでした"),
    "diagnosis_stopped_early": M("diagnosis stopped early: {what}", "間違いの診断が途中で止まりました: {what}"),
    "plot_data_collected": M("plot data not collected: {what}", "グラフ用のデータを集められませんでした: {what}"),
    "plot_data_left_out": M(
        "plot data left out (over the size limit): {what}",
        "大きさの上限を超えたため、グラフ用のデータを省きました: {what}"),
    "diagnosis_failed": M("diagnosis of {func}() failed: {what}", "{func}() の診断に失敗しました: {what}"),
    "cell_s_later_lines": M(
        "{where}: {what} (the cell's later lines did not run)",
        "{where}: {what}（このセルの残りの行は実行されていません）"),
    "cell_s_later_lines_at": M(
        "{where}, line {line}: {what} (the cell's later lines did not run)",
        "{where} の {line} 行目: {what}（このセルの残りの行は実行されていません）"),
    "tests_need_py_could_at": M(
        "{where}, line {line}: {what} — the tests that need {module}.py could not run",
        "{where} の {line} 行目: {what} — {module}.py が必要なテストを実行できませんでした"),
    "tests_need_py_could": M(
        "{where}: {what} — the tests that need {module}.py could not run",
        "{where}: {what} — {module}.py が必要なテストを実行できませんでした"),
    "test_itself_raised": M(
        "{test}: the test itself raised {name}: {what}",
        "{test}: テスト自体が {name} を送出しました: {what}"),
    # --- grading that cannot start or finish (runner.py) ----------------------------------------------
    "no_report_produced_pytest": M(
        'no report was produced for: {what} (pytest exit {code})',
        '次のレポートが作られませんでした: {what}（pytest の終了コード {code}）'),
    "reference_has_no_py": M(
        '{path}: the reference has no {part}.py',
        '{path}: 模範解答に {part}.py がありません'),
    # --- the student's own variant, in the report's notes (runner.py) ---------------------------------
    "variant_note": M("graded with your own numbers (variant {id}): {numbers}",
                      "あなた自身の数値で採点しました（変種 {id}）: {numbers}"),
    "variant_note_id": M("graded with your own numbers (variant {id})",
                         "あなた自身の数値で採点しました（変種 {id}）"),
}
