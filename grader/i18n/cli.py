"""What grader/cli/ says, in English and in Japanese.

Its sentences: the command line's own lines, and click's usage errors in Japanese.

Every key here is said by code of grader/cli/ (the comment above each group names the modules of
grader/cli/ that say it). A sentence that code of two areas says is kept once, in the table of the
lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table to
this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- click's own usage errors, said again in Japanese, and a --points value (usage_ja.py, term.py) ---
    "usage_no_such_option": M("{name}: no such option{maybe}", "{name} というオプションはありません{maybe}"),
    "usage_did_you_mean": M(" (did you mean {options}?)", "（{options} のことでしょうか）"),
    "usage_missing": M("{what} is missing", "{what} が指定されていません"),
    "points_decimal_comma": M("{got} is not a number; write the decimal with a point: {example}",
                              "{got} は数ではありません。小数点はピリオドで書いてください: {example}"),
    "points_not_number": M("{got} is not a number of points, e.g. 2, -1.5",
                           "{got} は点数として読めません（例: 2、-1.5）"),
    "usage_bad_value": M("invalid value for {what} ({detail})", "{what} の値が正しくありません（{detail}）"),
    "usage_choose": M("{what} takes one of {choices}", "{what} には {choices} のいずれかを指定してください"),
    "usage_no_such_command": M("{name}: no such command{maybe}", "{name} というコマンドはありません{maybe}"),
    "usage_other": M("the command line is not as the command takes it ({detail})",
                     "コマンドの指定が正しくありません（{detail}）"),
    "usage_help": M("{command} --help shows what it takes", "指定できるものは {command} --help で確かめられます"),
    # --- grader gradebook: the course gradebook (term.py) ---------------------------------------------
    "course_written": M(
        "{n} students, {k} assignments ({names}): {out}",
        "学生 {n} 人、課題 {k} 件（{names}）: {out}"),
    "course_unblinded": M(
        "{folder}: a blind batch; its students are named here by their own ids, from its identities.csv",
        "{folder}: 匿名で採点した結果です。ここでは identities.csv により各学生を本来の ID で示します"),
    "no_score": M(
        "  no score for {student} in {assignment}: {why}",
        "  {student} の {assignment} には得点を入れていません: {why}"),
    # --- what a command wrote or could not find (shared.py, student.py) -------------------------------
    "runner_file_not_written": M(
        "warning: {variable} ({path}) could not be written ({why}); the report stands",
        "警告: {variable}（{path}）に書き込めませんでした（{why}）。レポートはそのままです"),
    "grader_itself_failed": M(
        "the grader itself failed ({what}); this says nothing about the work graded: "
        "report it with the lines above (exit status 3)",
        "グレーダー自身が失敗しました（{what}）。採点した提出物についての結果ではありません。"
        "上の行を添えて報告してください（終了ステータス 3）"),
    "report_written": M("report written to {path}", "レポートを {path} に書き出しました"),
    "reports_formats_written": M("reports in {n} formats written to {path}", "{n} 形式のレポートを {path} に書き出しました"),
    "no_such_rubric_pass": M(
        "{path}: no such rubric. Pass --rubric with the path of a rubric YAML file, or leave --rubric "
        "out to use the rubrics/ folder of the course or release you are in.",
        "{path}: そのようなルーブリックはありません。--rubric にルーブリックの YAML ファイルのパスを"
        "指定するか、--rubric を省いて、いま居る授業またはリリースの rubrics/ フォルダを使ってください。"),
    # --- grader ledger (term.py) ----------------------------------------------------------------------
    "ledger_entry_written": M("ledger entry {n} written: {what}", "台帳に記録 {n} を書き込みました: {what}"),
    "adjust_score_moved": M("{who}: {what} {before} → {after}", "{who}: {what} {before} → {after}"),
    "ledger_state_applied": M("applied", "適用中"),
    "ledger_state_review": M("needs review (still applied)", "要確認（適用したまま）"),
    "ledger_state_confirmed": M("confirmed", "確定"),
    "ledger_state_undone": M("undone", "取り消し済み"),
    "ledger_state_recorded": M("recorded", "記録"),
    "ledger_verified_proves": M(
        "what this proves: no line was changed, reordered, inserted or deleted unless every line after "
        "it and ledger.head were written again too; the chain has no key, so whoever can write this "
        "folder can still do that: compare ledger.head's first line ({head}) with a copy kept elsewhere",
        "これで確かめられること: どの行も、書き換え・並べ替え・挿入・削除されていません（その後のすべての行と "
        "ledger.head まで書き直された場合を除きます）。連鎖には鍵がないので、このフォルダに書き込める人には"
        "それができます。ledger.head の 1 行目（{head}）を別の場所に保存した写しと比べてください"),
    "ledger_verified_entry_chain": M("ledger verified: 1 entry, chain intact", "台帳を検証しました: 記録 1 件、連鎖は壊れていません"),
    "ledger_verified_entries_chain": M("ledger verified: {n} entries, chain intact", "台帳を検証しました: 記録 {n} 件、連鎖は壊れていません"),
    # --- grader regrade (term.py) ---------------------------------------------------------------------
    "graded_again_changed_s": M(
        "{n} graded again, {changed} changed, in {s} s; record: {path}",
        "{n} 件を再採点し、{changed} 件が変わりました（{s} 秒）。記録: {path}"),
    # --- the batch's own lines on the terminal (batch.py, shared.py) ----------------------------------
    "graded_kept_before_graded": M(
        "{graded} graded, {resumed} kept from before, {ungraded} not graded{kinds}, in {s} s; gradebook: {path}",
        "{graded} 件を採点、{resumed} 件は前回の採点のまま、{ungraded} 件は採点なし{kinds}、{s} 秒。成績表: {path}"),
    "graded_kept_before_graded_2": M(
        "{graded} graded, {resumed} kept from before, {ungraded} not graded{kinds}, {unreadable} unreadable (error "
        "reports written), in {s} s; gradebook: {path}",
        "{graded} 件を採点、{resumed} 件は前回の採点のまま、{ungraded} 件は採点なし{kinds}、{unreadable} 件は読み取れず"
        "（エラーのレポートを書きました）、{s} 秒。成績表: {path}"),
    "empty_upload": M("empty upload: {n}", "空の提出: {n}"),
    "online_text_2": M("online text: {n}", "オンラインテキスト: {n}"),
    "submission": M("not a submission: {n}", "提出物ではないもの: {n}"),
    "interrupted_2": M("interrupted", "中断しました"),
    "worksheet_rubric_has_no": M(
        "--worksheet {file}: the rubric {rubric} has no due:, so no time is late; add due: (e.g. "
        "2026-12-01T23:59:00+09:00) to the rubric",
        "--worksheet {file}: ルーブリック {rubric} に due: がないため、遅れの判定ができません。ルーブリックに due:"
        "（例: 2026-12-01T23:59:00+09:00）を書き足してください"),
    # --- grader similarity (batch.py) -----------------------------------------------------------------
    "similarity_done": M(
        "{n} compared, {pairs} pairs flagged in {groups} groups; {path}",
        "{n} 件を比較し、{pairs} 組に印を付けました（{groups} グループ）。{path}"),
    "similarity_rule": M(
        "A pair is flagged at code ≥ {code}, or code ≥ {code_b} with behaviour ≥ {behaviour}; a student who "
        "shares none of a pair's code or behaviour changes nothing about it, however many join.",
        "コード ≥ {code}、またはコード ≥ {code_b} かつ振る舞い ≥ {behaviour} の組に印を付けます。"
        "ある組とコードも振る舞いも共有しない学生は、何人加わってもその組の値を変えません。"),
    "similarity_near_top": M(
        "The {n} most similar pairs below the flag:", "印の付かない組のうち、よく似た上位 {n} 組:"),
    "similarity_near_threshold": M(
        "Pairs below the flag with code ≥ {threshold}:", "印の付かない組のうち、コード ≥ {threshold} の組:"),
    "similarity_near_none": M("  none", "  なし"),
    "similarity_pair_line": M(
        "  {a} — {b}: code {code}, behaviour {behaviour}{flag}",
        "  {a} — {b}: コード {code}、振る舞い {behaviour}{flag}"),
    "similarity_pair_flagged": M(" (flagged, group {g})", "（印あり、グループ {g}）"),
    "similarity_pair_not_flagged": M(" (not flagged)", "（印なし）"),
    "similarity_pairs_named": M("The pairs named:", "指定された組:"),
    # --- grader catalogue draft (batch.py), grader release (prepare.py) --------------------------------
    "draft_written": M(
        "draft {id} ({function}, {n} submissions) added to {catalogue}; {mutant}; word it, delete `draft: true`, "
        "then run: {validate}",
        "下書き {id}（{function}、提出物 {n} 件）を {catalogue} に追加しました。{mutant}。文面を書き、"
        "`draft: true` を削除してから、次を実行してください: {validate}"),
    "draft_mutant": M("its mutant: {path}", "変異体: {path}"),
    "draft_no_mutant": M("no mutant (the code was not found)", "変異体はありません（コードが見つかりませんでした）"),
    "release_files_written": M("{n} files written to {outdir}", "{outdir} に {n} 個のファイルを書きました"),
    # --- grader new, grader gradescope (prepare.py) ----------------------------------------------------
    "new_written": M("{n} files written; next: grader validate --rubric {rubric}",
                     "{n} 個のファイルを書きました。次に実行するもの: grader validate --rubric {rubric}"),
    "gradescope_written": M("autograder written to {path}", "自動採点用の zip を {path} に書きました"),
    # --- a path that is not there, grader watch (shared.py, student.py) -------------------------------
    "no_such_file_folder": M(
        "{path}: no such file or folder; name your submission's folder, notebook or zip",
        '{path}: そのようなファイルやフォルダはありません。提出物のフォルダ、ノートブック、または zip を指定してください'),
    "no_such_file_folder_2": M(
        '{path}: no such file or folder; name your submission folder or notebook',
        '{path}: そのようなファイルやフォルダはありません。提出物のフォルダかノートブックを指定してください'),
    "watch_prints_terminal_cannot": M(
        '--watch prints to the terminal; it cannot be combined with --format, --out or --out-dir',
        '--watch は端末に表示します。--format、--out、--out-dir とは一緒に使えません'),
    # --- grader publish, and reports of entries gone from SOURCE (term.py, batch.py) ------------------
    "results_published_files_written": M("results published: {n} files written again", "結果を公開しました: {n} 個のファイルを書き直しました"),
    "reports_left_out": M(
        "left out {n} report(s) of entries no longer in SOURCE (kept in reports/): {names}",
        "SOURCE にもうない提出物のレポート {n} 件は成績表に載せませんでした（reports/ に残しています）: {names}"),
    # --- grader push (term.py) -----------------------------------------------------------------------
    "push_dry_line": M("{who} [{key}]: {before} -> {new} ({why})", "{who} [{key}]: {before} → {new}（{why}）"),
    "push_dry_summary": M("dry run: {n} cells would change ({counts}); nothing was written",
                          "試行: {n} 件の値が変わります（{counts}）。何も書き込んでいません"),
    "push_summary": M("pushed: {counts}; each student's state is in {csv}, and the push is ledger entry #{n}",
                      "送信しました: {counts}。学生ごとの結果は {csv}、この送信は台帳の記録 #{n} です"),
    "push_state_sent": M("sent", "送信済み"),
    "push_state_unchanged": M("unchanged", "変更なし"),
    "push_state_skipped": M("skipped", "見送り"),
    "push_state_failed": M("failed", "失敗"),
    "push_state_send": M("to send", "送信予定"),
    # --- grader push --to lti13 (term.py) ----------------------------------------------------------------
    "push_lti_needs_platform": M(
        "grader push --to lti13 needs --platform FILE: the platform file of docs/lms-lti13.md",
        "grader push --to lti13 には --platform FILE（docs/lms-lti13.md のプラットフォームのファイル）が必要です"),
    "push_canvas_needs": M(
        "grader push --to canvas needs {missing}: the Canvas address and the numbers in the assignment's address",
        "grader push --to canvas には {missing} が必要です: Canvas のアドレスと、課題のアドレスにある番号"),
    # --- grader pull (term.py) -----------------------------------------------------------------------
    "pull_state_new": M("new", "新規"),
    "pull_state_changed": M("changed", "更新"),
    "pull_state_not_submitted": M("not submitted", "未提出"),
    "pull_state_refused": M("refused", "対象外"),
    "pull_state_set_aside": M("set aside", "退避"),
    "pull_summary": M(
        "pulled into {path}: {counts}; only what changed since the last pull was downloaded. Next: {next}",
        "{path} に pull しました: {counts}。前回の pull から変わったものだけをダウンロードしました。次は: {next}"),
    # --- grader push --to moodle, grader pull --from moodle (term.py) ---------------------------------
    "push_moodle_needs": M(
        "grader push --to moodle needs {missing}: the Moodle address and the assignment's id (docs/lms-moodle.md)",
        "grader push --to moodle には {missing} が必要です: Moodle のアドレスと課題の ID（docs/lms-moodle.md）"),
    "pull_failed_one": M("{who}: not fetched ({why}); the folder of the last pull is kept, and the next pull "
                         "tries again",
                         "{who}: 取得できませんでした（{why}）。前回取得したフォルダはそのまま残し、次の pull でもう一度"
                         "試します"),
    "pull_first_summary": M(
        "pulled {n} submission(s) into {folder} ({drafts} draft(s) not submitted, not fetched)",
        "{n} 件の提出物を {folder} に取得しました（提出前の下書き {drafts} 件は取得していません）"),
    "pull_again_summary": M(
        "pulled again: {n} submission(s) new or changed since the last pull, fetched into {folder}; {unchanged} "
        "unchanged, not fetched again ({drafts} draft(s) not submitted, not fetched)",
        "再取得: 前回の後に新しく提出または変更された {n} 件を {folder} に取得しました。変わっていない {unchanged} 件は"
        "取得し直していません（提出前の下書き {drafts} 件は取得していません）"),
    "pull_unnumbered": M(
        "{n} student(s) have no participant number in Moodle yet, so they were not fetched: open the "
        "assignment's \"View all submissions\" page in Moodle once (Moodle numbers every student there), "
        "then pull again",
        "{n} 人の学生にはまだ Moodle の参加者番号がないため、取得していません。Moodle で課題の「すべての提出を表示する」"
        "ページを一度開いてから（そこで Moodle が全員に番号を付けます）、もう一度 pull してください"),
    "pull_next": M(
        "grade them with: grader batch {folder} --out OUT --submitted {submitted} --extensions {extensions}",
        "採点するには: grader batch {folder} --out OUT --submitted {submitted} --extensions {extensions}"),
    # --- grader push: one reason many failures share, said once (term.py) -------------------------------
    "push_reason_below": M("reason {n} below", "下の理由 {n}"),
    "push_reason_shared": M(
        "reason {n}, for {count} students (each one is listed with it in {csv}): {reason}",
        "理由 {n}（{count} 人の学生。一人ずつ理由とともに {csv} にあります）: {reason}"),
    # --- blind grading: a reason that names a student (term.py) -----------------------------------
    "reason_named_student": M(
        "warning: the reason names a student of this blind batch (a name or an id it knows); it is kept with "
        "[name] or [id] in its place, so that no report, gradebook or page shows who it is",
        "警告: 理由にこの匿名採点の学生の名前か ID が含まれています。だれのことか報告・成績表・ページに出ないよう、"
        "その部分を [name] または [id] に置き換えて記録します"),
    # --- grader variants (variants.py) ---------------------------------------------------------------
    "variants_refused_line": M("variant {variant} ({values}): {subject}: {problem}",
                               "変種 {variant}（{values}）: {subject}: {problem}"),
    "variants_refused": M(
        "refused: {n} of the {checked} variants do not hold (above); nothing was issued. Change the pool value "
        "they share in the rubric's variants:, or fix the style or the suite, and check again",
        "発行しません: {checked} 個の変種のうち {n} 個が成り立ちません（上記）。ルーブリックの variants: で共通する"
        "プールの値を変えるか、書き方やテストを直して、もう一度検証してください"),
    "variants_proven": M(
        "{n} variants proven and issued ({gradings} gradings, {diagnoses} diagnoses, {seconds} s): {path}, hash {hash}",
        "{n} 個の変種を検証して発行しました（採点 {gradings} 回、診断 {diagnoses} 回、{seconds} 秒）: {path}、ハッシュ {hash}"),
    "variants_in_ledger": M("the issued table and its hash are in {outdir}/ledger.jsonl",
                            "発行した表とそのハッシュを {outdir}/ledger.jsonl に記録しました"),
    "variants_releases_written": M("{n} personal releases written in {outdir}, one folder per student",
                                   "{outdir} に個人別のリリースを {n} 件書きました（学生ごとに一つのフォルダ）"),
}

#: key -> a word, a heading or a line of a page, in English and in Japanese.
LABELS: dict[str, M] = {
    # --- the first word of an error line, and of a usage line (shared.py, usage_ja.py, watch.py) ------
    "usage_line": M("Usage", "使い方"),
    "grader_error": M("grader error", "採点システムのエラー"),
}
