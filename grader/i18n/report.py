"""What grader/report/ says, in English and in Japanese.

Its sentences: the ledger, the records an OUT folder keeps, the writers' words.

The writers' words (``LABELS``) are said through the views of grader/report/text.py, which the pages
of grader/outputs/ read too: grader/report/ is the lower of the two, so they are here.

Every key here is said by code of grader/report/ (the comment above each group names the modules of
grader/report/ that say it). A sentence that code of two areas says is kept once, in the table of
the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table
to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- the ledger of hand adjustments (ledger.py) ---------------------------------------------------
    "line_ledger_refused_until": M(
        "{path}: line {n}: {why}; the ledger is refused until it is restored (from a backup, or by "
        "undoing the hand edit)",
        "{path}: {n} 行目: {why}。元に戻す（バックアップから戻すか、手で書き換えたところを戻す）まで、"
        "この台帳は使いません"),
    "ledger_entry": M("not a ledger entry ({kind})", "台帳の記録ではありません（{kind}）"),
    "ledger_entry_op_n": M("not a ledger entry (op, n or submission)", "台帳の記録ではありません（op、n、submission のどれか）"),
    "does_match_hash_line": M(
        "does not match the hash line {i} holds of it (edited, reordered or deleted)",
        "{i} 行目が持つこの行のハッシュと一致しません（書き換え、並べ替え、削除のどれか）"),
    "does_start_chain_edited": M(
        "does not start the chain (edited, or lines were deleted before it)",
        "連鎖の始まりになっていません（書き換えられたか、その前の行が削除されています）"),
    "numbered_lines_were_reordered": M(
        "numbered {m} (lines were reordered, inserted or deleted)",
        "番号が {m} です（行が並べ替えられたか、挿入・削除されています）"),
    "missing_ledger_head_records": M(
        "missing (ledger.head records {n} lines, the ledger has {m})",
        "ありません（ledger.head には {n} 行と記録されていますが、台帳は {m} 行です）"),
    "missing_ledger_head_records_2": M(
        "missing (ledger.head records entries, ledger.jsonl is gone)",
        "ありません（ledger.head に記録がありますが、ledger.jsonl がありません）"),
    "does_match_hash_ledger": M(
        "does not match the hash ledger.head holds of it (edited)",
        "ledger.head が持つこの行のハッシュと一致しません（書き換えられています）"),
    "recorded_ledger_head_lines": M(
        "not recorded in ledger.head ({n} lines; added by hand?)",
        "ledger.head に記録されていません（{n} 行まで。手で追加されましたか？）"),
    "ledger_head_missing": M("ledger.head is missing", "ledger.head がありません"),
    "ledger_head_lines_hash": M("ledger.head is not '<lines> <hash>'", "ledger.head が「<行数> <ハッシュ>」の形ではありません"),
    "ledger_entry_nested": M("not a ledger entry (JSON nested too deep to read)",
                             "台帳の記録ではありません（JSON の入れ子が深すぎて読めません）"),
    "ledger_entry_field": M("not a ledger entry (its field {field} has the wrong type)",
                            "台帳の記録ではありません（項目 {field} の型が違います）"),
    "ledger_not_utf8": M("not UTF-8 text (at byte {col} of the line)",
                         "UTF-8 のテキストではありません（この行の {col} バイト目）"),
    "ledger_line_cut_short": M(
        "cut short (no end of line, and ledger.head does not hold the line to finish it)",
        "途中で切れています（行末がなく、ledger.head にもこの行が残っていないので補えません）"),
    "ledger_append_finished": M(
        "{path}: line {n} was cut short when it was appended; it was written in full from ledger.head",
        "{path}: {n} 行目は書き込みの途中で止まっていたので、ledger.head に残っていた内容で書き終えました"),
    "ledger_lock_holder_unknown": M("(the holder has not said who it is yet)", "（持ち主はまだ名乗っていません）"),
    "ledger_lock_waiting": M(
        "waiting for {path}: another grader command is writing this folder ({holder}); this one "
        "goes on when that one ends (Ctrl-C stops waiting)",
        "{path} を待っています: 別の grader コマンドがこのフォルダに書き込み中です（{holder}）。"
        "それが終わると続けます（Ctrl-C で待つのをやめます）"),
    "ledger_lock_taken": M("{path}: the folder is free now; going on", "{path}: フォルダが空いたので続けます"),
    # --- report formats, and the records an OUT folder keeps (__init__.py, outdir.py) -----------------
    "unknown_report_format_use": M(
        'unknown report format {fmt}; use one of {formats}',
        '不明なレポート形式 {fmt} です。{formats} のどれかを使ってください'),
    "roster_unreadable": M(
        "{path}: not the record of the names this folder's batches gave; restore it from a backup, "
        "or delete it and run grader batch again (names are then given afresh, and adjustments "
        "follow the report names as they were given)",
        "{path}: このフォルダのバッチが付けた名前の記録として読めません。バックアップから戻すか、"
        "削除して grader batch をもう一度実行してください（名前は付け直され、調整は付け直した"
        "レポート名に従います）"),
    "publication_record_run_grader": M(
        "{name}: not a publication record; run grader publish {out} again",
        "{name}: 公開の記録として読めません。grader publish {out} をもう一度実行してください"),
    "due_date_record_run": M(
        "{name}: not a due-date record; run grader batch {out} --resume to write it again",
        "{name}: 期限の記録として読めません。grader batch {out} --resume を実行して書き直してください"),
}

#: key -> a word, a heading or a line of a page, in English and in Japanese.
LABELS: dict[str, M] = {
    # --- the reports' words and headings (text.py, cell.py, gradescope.py, terminal.py) ---------------
    "report": M("Grading report", "採点結果"),
    "score": M("Score", "得点"),
    "part": M("Part", "小問"),
    "test": M("Test", "テスト"),
    "tests": M("Tests", "テスト"),
    "status": M("Status", "結果"),
    "points": M("Points", "点数"),
    "mistakes": M("What went wrong", "見つかった間違い"),
    "errors": M("Problems while grading", "採点中の問題"),
    "notes": M("Notes", "補足"),
    "adjustments": M("Adjustments by hand", "手作業による得点の調整"),
    "gb_title": M("Gradebook", "成績表"),
    "gb_counts": M(
        "{n} rows; {adjusted} adjusted by hand; {ungraded} without a grade (the reason is in the row).",
        "{n} 行。手作業で調整した行 {adjusted}、点数のない行 {ungraded}（理由はその行にあります）。"),
    "gb_adjusted": M("adjusted by hand", "手作業で調整"),
    "gb_ungraded": M("no grade", "点数なし"),
    "gb_submission": M("Submission", "提出物"),
    "gb_student_id": M("Student ID", "学生 ID"),
    "gb_name": M("Name", "氏名"),
    "gb_score": M("Final score", "最終得点"),
    "gb_automatic": M("Automatic score (before the late penalty)", "自動採点の得点（遅延減点の前）"),
    "gb_adjustment": M("Adjustment", "調整"),
    "gb_max": M("Out of", "満点"),
    "gb_passed": M("Passed", "合否"),
    "passed": M("passed", "合格"),
    "gb_no": M("not passed", "不合格"),
    "gb_late": M("Late penalty", "遅延による減点"),
    "gb_reasons": M("Why adjusted", "調整の理由"),
    "gb_problems": M("Problems", "問題"),
    "gb_flags": M("Flags", "注意"),
    "below": M("below the pass mark", "合格点未満"),
    "passed_but": M("passed, but with the central mistake {ids}", "合格。ただし核心の間違い {ids} があります"),
    "central_title": M(
        "Passed, but with the chapter's central mistake: fix it first",
        "合格ですが、この章の核心の間違いがあります。まず直してください"),
    "pass_mark": M("Pass mark", "合格点"),
    "expected": M("expected", "期待値"),
    "actual": M("got", "実際の値"),
    "plots": M("Your functions, plotted", "あなたの関数のグラフ"),
    "no_plots": M("No plot data in this report.", "このレポートにはグラフ用のデータがありません。"),
    "sandbox": M("Sandbox", "サンドボックス"),
    "weak": M("Warning", "警告"),
    "output": M("Your code printed", "コードの出力"),
    "submission": M("submission", "提出物"),
    "mistake_ids": M("mistakes", "間違い"),
    "seed": M("seed", "シード"),
    "grading_failed": M("Grading did not finish", "採点を完了できませんでした"),
    "check": M("Check (public tests)", "チェック（公開テスト）"),
    "failing": M("Tests not passed", "合格していないテスト"),
    "all_passed": M("All {n} public tests passed.", "公開テスト {n} 件すべてに合格しました。"),
    "some_passed": M("{n} of {total} public tests passed.", "公開テスト {total} 件中 {n} 件に合格しました。"),
    "hidden_more": M("{n} more tests at grading.", "採点時には、さらに {n} 件のテストを実行します。"),
    "hidden_some": M("More tests at grading.", "採点時には、さらにテストを実行します。"),
    "graded_cells": M("Graded: the cells run in this kernel ({n}).", "採点対象: このカーネルで実行したセル（{n} 個）。"),
    "not_run": M(
        "Run the cells that define these functions first, then run this check again:",
        "先に、次の関数を定義しているセルを実行してから、もう一度このチェックを実行してください:"),
    "not_run_how": M(
        "The check grades only the cells run in this kernel. In Jupyter, select this cell and choose Run ▸ Run All Above Selected Cell (or run each cell with Shift+Enter).",
        "チェックは、このカーネルで実行したセルだけを採点します。Jupyter では、このセルを選んで「Run ▸ Run All Above Selected Cell」を選ぶか、各セルを Shift+Enter で実行してください。"),
    "level_strong": M("namespaces (the strongest level)", "namespaces（最も強いレベル）"),
    "now_passing": M("now passes", "合格になりました"),
    "now_failing": M("no longer passes", "不合格になりました"),
    "found": M("mistake found", "間違いを検出"),
    "fixed": M("mistake fixed", "間違いが直りました"),
    "score_word": M("score", "得点"),
    "unchanged": M("no change", "変化なし"),
    "n_tests": M("{n} tests", "テスト {n} 件"),
    "watching": M(
        "Watching {what} (Ctrl-C to stop); checked in {s:.2f} s.",
        "{what} を監視しています（Ctrl-C で終了）。チェック {s:.2f} 秒。"),
    "rechecked": M("{file} saved: checked again in {s:.2f} s.", "{file} が保存されました: {s:.2f} 秒で再チェックしました。"),
    # --- a test's status (text.py) --------------------------------------------------------------------
    "status_failed": M("failed", "不合格"),
    "error": M("error", "エラー"),
    "status_timeout": M("timeout", "時間切れ"),
    "status_skipped": M("skipped", "スキップ"),
    # --- the class summary's plots (text.py) ----------------------------------------------------------
    "plot_score_max": M("score (max {top})", "得点（満点 {top}）"),
    "plot_submissions": M("submissions", "提出物の数"),
    "plot_score_distribution": M("Score distribution", "得点の分布"),
    "plot_passing": M("% of submissions passing", "合格した提出物の割合（%）"),
    "plot_pass_rate": M("Pass rate per test (lowest {shown} of {total})", "テストごとの合格率（全 {total} 件のうち低い方から {shown} 件）"),
    "plot_pass_rate_all": M("Pass rate per test (all {total}, lowest first)", "テストごとの合格率（全 {total} 件、低い順）"),
    "plot_no_mistake": M("no known mistake recognised", "既知の間違いは見つかりませんでした"),
    "plot_mistake_counts": M("How often each mistake id occurred", "間違いの ID ごとの件数"),
    # --- the adjustments section (text.py) ------------------------------------------------------------
    "adjust_total": M(
        "Automatic score {auto}; adjusted by {delta}; final score {final}.",
        "自動採点の得点 {auto}、調整 {delta}、最終得点 {final}。"),
    "adjust_points": M("{sign}{points} points", "{sign}{points} 点"),
    "adjust_set": M("score set to {set}", "得点を {set} に設定"),
    "adjust_entry": M(
        "#{n} {change} ({where}): {reason} (by {by}, {at})",
        "#{n} {change}（{where}）: {reason}（{by}、{at}）"),
    "adjust_whole": M("total", "合計"),
    # --- a reviewer's comments on lines (grader review; text.py) -----------------------------------------
    "report_comments": M("Comments on your code", "コードへのコメント"),
    "report_comment_line": M("{file}, lines {start}–{end}: {text} (by {by}, {at})",
                             "{file} の {start}〜{end} 行: {text}（{by}、{at}）"),
    "adjust_part": M("part {part}", "小問「{part}」"),
    "adjust_review": M(
        " — needs review: made against an automatic score of {against}, which is now {now}; still applied "
        "until confirmed (--confirm {n}) or undone (--undo {n})",
        " — 要確認: 自動採点の得点 {against} に対する調整ですが、その得点はいま {now} です。確定（--confirm {n}）"
        "または取り消し（--undo {n}）まで適用したままです"),
    # --- hidden tests (redact.py) ---------------------------------------------------------------------
    "hidden_title": M("Hidden tests ({n})", "非公開テスト（{n} 件）"),
    "hidden_note": M("The details of these tests are not shown.", "これらのテストの詳細は表示されません。"),
    # --- the CI job summary (markdown.py) -------------------------------------------------------------
    "ci_ran": M(
        "The check ran and passed: {score} of {max} points, at or above the pass mark of {mark}%.",
        "チェックを実行し、合格しました：{max} 点中 {score} 点で、合格点 {mark}% 以上です。"),
    "ci_below": M(
        "The check ran, but did not pass: {score} of {max} points, below the pass mark of {mark}%.",
        "チェックは実行しましたが、合格していません：{max} 点中 {score} 点で、合格点 {mark}% 未満です。"),
    "ci_but": M(
        "The check ran and passed on points ({score} of {max}, pass mark {mark}%), but the code has the chapter's central mistake: {mistake}",
        "チェックを実行し、点数では合格しました（{max} 点中 {score} 点、合格点 {mark}%）。ただし、この章の核心の間違いがあります: {mistake}"),
    "ci_job_fails": M(" This job fails until the pass mark is reached.", "合格点に届くまで、このジョブは失敗と表示されます。"),
    "ci_cut": M(
        "The summary was cut here to fit the platform's size limit; the full report is in the job's artifacts and log.",
        "表示できる大きさの上限に合わせて、概要はここで切りました。完全なレポートはジョブの成果物とログにあります。"),
    "ci_failed": M("{n} problem(s)", "{n} 件の問題"),
    "ci_more": M(
        "{n} more function(s) with failing tests are not annotated here; the job summary lists every test.",
        "テストが通らない関数があと {n} 個ありますが、ここには注釈していません。ジョブの概要にすべてのテストがあります。"),
    "ci_more_title": M("More failing functions", "ほかにも通らない関数があります"),
}
