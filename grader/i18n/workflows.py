"""What grader/workflows/ says, in English and in Japanese.

Its sentences: grader batch, adjust, regrade and publish.

Every key here is said by code of grader/workflows/ (the comment above each group names the modules
of grader/workflows/ that say it). A sentence that code of two areas says is kept once, in the table
of the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each
table to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- a plain reason a gradebook row holds no grade (batch.py) -------------------------------------
    "interrupted": M("not graded (the batch was interrupted)", "採点していません（一括採点が中断されました）"),
    # --- the gradebooks not all written again after an adjustment (adjust.py) -------------------------
    "adjust_recorded_views_not": M(
        "entry #{n} is in the ledger (do not make it again; grader ledger OUT lists it), but the gradebooks "
        "were not all written again: {why}",
        "記録 #{n} は台帳に入りました（もう一度行わないでください。grader ledger OUT で確かめられます）。"
        "ただし成績表をすべては書き直せませんでした: {why}"),
    # --- hand adjustments (adjust.py) -----------------------------------------------------------------
    "adjust_no_report_why": M(
        "{out}: {student} has no report to adjust, since the batch did not grade it: {why}; its row in "
        "gradebook.csv says so, and its grade is yours to give in the LMS",
        "{out}: {student} はバッチが採点しなかったため、調整するレポートがありません: {why}。gradebook.csv の"
        "その行にも書いてあります。成績は LMS で直接付けてください"),
    "adjust_no_reason_recorded": M("its row gives no reason", "その行に理由は書かれていません"),
    "no_report_looked_submission": M(
        "{out}: no report for {student} (looked for a submission or a student id of that name); the "
        "reports are in {reports}",
        "{out}: {student} のレポートがありません（その名前の提出物と学生 ID を探しました）。"
        "レポートは {reports} にあります"),
    "matches_reports_name_submission": M(
        "{out}: {student} matches {n} reports ({listed}); name the submission instead",
        "{out}: {student} に当てはまるレポートが {n} 件あります（{listed}）。提出物の名前で指定してください"),
    "adjust_not_finite": M(
        "{option} {value}: not a number of points; write one such as {option}=2.5 or {option}=-2",
        "{option} {value}: 点数として読めません。{option}=2.5 や {option}=-2 のように書いてください"),
    "adjust_set_out_of_range": M(
        "{out}: --set {value}: {student}'s {what} is scored out of {top}; set it from 0 to {top} "
        "(to give more, use --points: the score still stops at {top})",
        "{out}: --set {value}: {student} の{what}は {top} 点満点です。0 から {top} の値を指定してください"
        "（加点は --points で。それでも点数は {top} 点で止まります）"),
    "adjust_total": M("total", "合計"),
    "adjust_final": M("final score", "最終得点"),
    "adjust_part": M("part {part}", "小問「{part}」"),
    "has_no_part_parts": M(
        "{out}: {student} has no part {part}; its parts are {parts}",
        "{out}: {student} には小問 {part} がありません。小問は {parts} です"),
    "no_adjustment_see_grader": M(
        "{out}: no adjustment {n} of {student} to {what}; see grader ledger {out}",
        "{out}: {student} の調整 {n} は{what}できません。grader ledger {out} で確かめてください"),
    # --- why a final score moved (changes.py) ---------------------------------------------------------
    "score_moved": M("{who}: {before} → {after} ({why})", "{who}: {before} → {after}（{why}）"),
    "why_tests": M(
        "tests graded again: {tests}; automatic score {before} → {after}",
        "再採点したテスト: {tests}。自動採点の得点 {before} → {after}"),
    "why_files_changed": M(
        "its files changed since the last batch, so it was graded again; automatic score {before} → {after}",
        "前回の一括採点の後にファイルが変わったため再採点しました。自動採点の得点 {before} → {after}"),
    "why_automatic": M("automatic score {before} → {after}", "自動採点の得点 {before} → {after}"),
    "why_extension": M(
        "extension applied ({reason}): late penalty {before} → {after}",
        "期限延長を適用しました（{reason}）。遅延による減点 {before} → {after}"),
    "why_late": M("late penalty {before} → {after}", "遅延による減点 {before} → {after}"),
    "why_review": M(
        "adjustment #{n} now needs review (made against an automatic score of {against}, now {now}); it stays "
        "applied until you decide: grader adjust OUT {submission} --confirm {n} or --undo {n}",
        "調整 #{n} が要確認になりました（自動採点の得点 {against} に対する調整で、その得点はいま {now}）。"
        "決めるまで適用したままです: grader adjust OUT {submission} --confirm {n} または --undo {n}"),
    # --- grader regrade (regrade.py) ------------------------------------------------------------------
    "no_report_grader_batch": M(
        "no report from grader batch: run grader batch --resume",
        "grader batch のレポートがありません。grader batch --resume を実行してください"),
    "not_in_source_now": M(
        "SOURCE holds no submission of this name now: its report stays as it was",
        "SOURCE には今この名前の提出物がないため、レポートはそのままです"),
    "files_changed_since_graded": M(
        "its files changed since it was graded: run grader batch --resume",
        "採点後にファイルが変わっています。grader batch --resume を実行してください"),
    "no_report_grade_again": M(
        "{out}: no report to grade again for {source}; run grader batch {source} --out {out} first",
        "{out}: {source} について再採点するレポートがありません。先に grader batch {source} --out {out} を実行してください"),
    "no_test_id_matches": M(
        "no test id matches {patterns}; test ids look like {example}",
        "{patterns} に当てはまるテスト ID がありません。テスト ID は {example} のような形です"),
    # --- due dates and extensions against the batch (batch.py) ----------------------------------------
    "listed_match_no_submission": M(
        "warning: {option} names {n} student(s) no graded submission matches: {who}; check the spelling "
        "(the LMS's student id or the report's name)",
        "警告: {option} に書かれた学生のうち {n} 人が、採点した提出のどれとも一致しません: {who}。"
        "綴りを確かめてください（LMS の学生 ID か、レポートの名前）"),
    "extension_without_time": M(
        "warning: {n} student(s) with an extension have no submission time, so the LMS's late flag "
        "takes nothing off them: {who}; give --submitted or --worksheet to measure their lateness",
        "警告: 延長のある学生 {n} 人は提出時刻がわからないため、LMS の期限後フラグでは減点していません: {who}。"
        "遅れを測るには --submitted か --worksheet を渡してください"),
    # --- what adjust, publish and batch are given (adjust.py, publish.py, batch.py) -------------------
    "undo": M("undo", "取り消し"),
    "confirm": M("confirm", "確認"),
    "give_one_points_set": M(
        "give one of --points, --set, --undo or --confirm",
        "--points、--set、--undo、--confirm のどれか一つを指定してください"),
    "reason_required_say_why": M(
        "--reason is required: say why the score changes",
        "--reason が必要です。得点を変える理由を書いてください"),
    "no_batch_output_here": M(
        "{out}: no batch output here (no reports folder); pass the --out folder of grader batch",
        "{out}: 採点結果のフォルダではありません（reports フォルダがありません）。grader batch の --out のフォルダを指定してください"),
    "jobs_sets_how_many": M(
        "--jobs sets how many processes grade on this machine; with --cluster the cluster's workers grade: "
        "drop --jobs, or start workers with more threads",
        "--jobs はこのマシンで採点するプロセスの数です。--cluster ではクラスターのワーカーが採点します。"
        "--jobs を外すか、スレッドを増やしてワーカーを起動してください"),
    # --- the batch's own lines on the terminal (batch.py) ---------------------------------------------
    "resume_cache_disagreed": M(
        "{name}: the hidden copy of its report ({copy}) did not say what {record} says (edited by hand?); "
        "the copy was removed and the report itself used",
        "{name}: レポートの隠しコピー（{copy}）の内容が {record} と一致しませんでした（手で書き換えられた？）。"
        "コピーを削除し、レポートそのものを使いました"),
    "resume_submission_s_already": M(
        "resume: {n} submission(s) already graded with this rubric; skipped",
        "再開: このルーブリックで採点済みの提出物 {n} 件は採点し直しません"),
    "interrupted_graded_kept_finish": M(
        "interrupted: {n} of {total} graded and kept in {outdir}; finish with: {again} --resume",
        "中断しました: {total} 件中 {n} 件を採点して {outdir} に残しました。続きは次のコマンドで: {again} --resume"),
    "report_could_written": M("its report could not be written ({why})", "レポートを書き出せませんでした（{why}）"),
    "warning": M("warning: {warning}", "警告: {warning}"),
    "warning_similarity_stage_failed": M(
        "warning: the similarity stage failed ({what}); run it again with: grader similarity {out}",
        "警告: 類似度の検出に失敗しました（{what}）。次のコマンドでやり直してください: grader similarity {out}"),
    "warning_reports_skipped": M("warning: {why}; {fmt} reports skipped", "警告: {why}。{fmt} のレポートは書きませんでした"),
    "cannot_read_error_report": M(
        "cannot read: {why} (an error report is written)",
        "読み取れません: {why}（エラーのレポートを書きました）"),
    "item_analysis_correct_styles": M(
        "item analysis: {n} correct styles of the validate corpus are graded beside the class",
        "テストの分析のため、validate の正しい別解 {n} 件をクラスと一緒に採点します"),
    # --- a batch or an adjustment that cannot go on (batch.py, adjust.py) -----------------------------
    "finished_reports_kept_fix": M(
        '{failure} ({n} finished reports kept in {outdir}; fix the cause, then run again: {again} --resume)',
        '{failure}（終わったレポート {n} 件は {outdir} に残してあります。原因を直してから、もう一度実行してください: {again} --resume）'),
    "no_submission_found_entries": M(
        "{source}: no submission found (entries looked at: {seen}; none holds {files}, answers.yaml, a notebook or a zip of them); pass the folder or the LMS's download zip that holds the students' uploads",
        '{source}: 提出物が見つかりません（{seen} 項目を調べましたが、{files}、answers.yaml、ノートブック、またはそれらの zip を含むものはありません）。学生の提出物が入ったフォルダか、LMS からダウンロードした zip を指定してください'),
    "batch_keeps_folder_seed": M(
        "grading with seed {seed}, as the reports already in the folder were (--seed chooses another)",
        "フォルダにあるレポートと同じシード {seed} で採点します（別のシードにするには --seed）"),
    "report_not_in_batch": M(
        "{out}: {name} is not in the last batch: its entry is no longer in SOURCE, so its report "
        "is kept but is in no gradebook; run grader batch with the entry in SOURCE again first",
        "{out}: {name} は最後のバッチにありません。その提出物がもう SOURCE にないため、レポートは"
        "残っていますがどの成績表にも載りません。先にその提出物を SOURCE に戻して grader batch を"
        "実行してください"),
    # --- blind grading (adjust.py) --------------------------------------------------------------------
    "anonymous_batch_name_student": M(
        "{out}: an anonymous batch: name the student by the anonymous id its reports and gradebook.csv give "
        "(anon-…), not by a name or an LMS id",
        "{out}: 匿名で採点したフォルダです。学生は、名前や LMS の ID ではなく、レポートと gradebook.csv の"
        "匿名 ID（anon-…）で指定してください"),
    # --- grader push (push.py) -----------------------------------------------------------------------
    "push_token_file_mode": M(
        "{path} may be read by others (mode {mode}): a token file must be yours alone; run chmod 600 {path}",
        "{path} は他の人も読めます（モード {mode}）。トークンのファイルは本人だけが読めるようにしてください: "
        "chmod 600 {path}"),
    "push_token_file_unreadable": M("{path}: the token file cannot be read ({why})",
                                    "{path}: トークンのファイルを読めません（{why}）"),
    "push_token_missing": M(
        "no token: set {variable} or give --token-file FILE (mode 600)",
        "トークンがありません。{variable} を設定するか、--token-file FILE（モード 600）を渡してください"),
    "push_ids_unreadable": M("{path}: the LMS ids file cannot be read ({why})",
                             "{path}: LMS の ID のファイルを読めません（{why}）"),
    "push_ids_columns": M("{path}: every row needs the columns student and lms_id",
                          "{path}: どの行にも student と lms_id の列が必要です"),
    "push_ids_twice": M("{path}: {student} is listed twice; keep one row",
                        "{path}: {student} が 2 回書かれています。1 行にしてください"),
    "push_no_grade": M("no grade to send: {why}", "送る成績がありません: {why}"),
    "push_no_lms_id": M(
        "no {lms} user id for this student (give it in --lms-ids FILE); a name alone is never matched",
        "この学生の {lms} のユーザー ID がありません（--lms-ids FILE で渡してください）。名前だけでは照合しません"),
    "push_two_rows_one_id": M("{n} rows claim LMS id {key}: none of them is sent",
                              "{n} 行が同じ LMS の ID {key} を持つため、どれも送りません"),
    "push_not_in_lms": M(
        "LMS id {key} is not a student of this assignment (withdrawn, not enrolled, or not a student)",
        "LMS の ID {key} はこの課題の学生ではありません（履修取消、未登録、または学生以外）"),
    "push_lms_edited": M(
        "changed in the LMS since the last push (it holds {now}, the last push wrote {wrote}); kept, unless "
        "--overwrite-lms-edits",
        "前回の送信の後に LMS で変更されています（現在 {now}、前回の送信は {wrote}）。--overwrite-lms-edits が"
        "なければそのままにします"),
    "push_lms_not_ours": M(
        "the LMS holds {now}, which no push wrote; kept, unless --overwrite-lms-edits",
        "LMS には送信していない値 {now} があります。--overwrite-lms-edits がなければそのままにします"),
    "push_no_outcome": M("the LMS gave no answer for this student", "LMS からこの学生への応答がありません"),
    "push_main_mistake": M(". {text}", "。{text}"),
    "push_why_ledger": M("ledger #{n} ({by}): {reason}", "台帳 #{n}（{by}）: {reason}"),
    "push_why_late": M("late policy: {before} less {penalty}", "提出遅れの規定: {before} から {penalty} を減点"),
    "push_why_report": M("automatic score (reports/{submission}.yaml)", "自動採点の得点（reports/{submission}.yaml）"),
    # --- grader push --to lti13: the roster's reason (push.py) ----------------------------------------
    "push_lms_roster_refuses": M("LMS id {key} is not written: {why}", "LMS の ID {key} には書き込みません: {why}"),
    # --- grader pull (pull.py) -----------------------------------------------------------------------
    "pull_folder_not_empty": M(
        "{path} holds files no pull wrote (e.g. {example}): give a new or empty folder, or the folder an "
        "earlier pull of this assignment filled",
        "{path} には pull が書いていないファイルがあります（例: {example}）。新しいか空のフォルダ、または以前に"
        "この課題を pull したフォルダを指定してください"),
    "pull_other_course": M(
        "{path} holds a pull of course {course}, assignment {assignment}: give another folder for this one",
        "{path} にはコース {course} の課題 {assignment} を pull してあります。この課題には別のフォルダを指定して"
        "ください"),
    "pull_test_student": M("Canvas's test student (Student View): not a student of the course",
                           "Canvas のテスト学生（学生ビュー）で、コースの学生ではありません"),
    "pull_withdrawn": M("withdrawn from the course (enrollment {what})",
                        "コースから外れています（登録の状態 {what}）"),
    "pull_not_student": M("not a student of the course ({what})", "コースの学生ではありません（{what}）"),
    "pull_not_enrolled": M("not enrolled in the course", "コースに登録されていません"),
    "pull_not_listed": M("no longer listed by Canvas for this assignment",
                         "この課題の提出一覧に Canvas が載せなくなりました"),
    "pull_set_aside": M("; the {n} files of the last pull were moved to {path}",
                        "。前回の pull のファイル {n} 個を {path} に移しました"),
    "pull_no_url": M("Canvas gave no address for the file {file}: download it in Canvas",
                     "Canvas がファイル {file} のアドレスを返しません。Canvas でダウンロードしてください"),
    "pull_state_unreadable": M(
        "{path}: the record of the last pull cannot be read ({why}); move the folder aside and pull into a new one",
        "{path}: 前回の取得の記録を読めません（{why}）。フォルダを別の場所に移して、新しいフォルダに取得してください"),
    "pull_other_assignment": M(
        "{path}: this folder holds a pull of assignment {assignment} from {url}; pull another assignment into "
        "a folder of its own",
        "{path}: このフォルダには {url} の課題 {assignment} を取得しています。別の課題は別のフォルダに取得してください"),
    "pull_moodle_extension": M("extension granted in Moodle", "Moodle で認められた提出期限の延長"),
    "pull_moodle_participant": M("Participant", "参加者"),
    "pull_canvas_needs_course": M(
        "grader pull --from canvas needs --course: the number after /courses/ in the assignment's address",
        "grader pull --from canvas には --course が必要です: 課題のアドレスで /courses/ の後にある番号"),
    # --- blind grading: extension reasons that name a student (batch.py) ----------------------------
    "extension_reason_named": M(
        "warning: {n} extension reasons (--extensions) name a student of this blind batch (a name or an id it "
        "knows); the reports and gradebooks show each with [name] or [id] in its place",
        "警告: 期限延長の理由（--extensions）のうち {n} 件に、この匿名採点の学生の名前か ID が含まれています。"
        "報告と成績表では、その部分を [name] または [id] に置き換えて示します"),
    # --- a batch with per-student variants (batch.py) -------------------------------------------------
    "batch_variants_none": M(
        "--variants: {file} declares no variants; add a variants: section and run grader variants check first",
        "--variants: {file} には変種がありません。variants: の節を書き、先に grader variants check を実行してください"),
}

#: key -> a word, a heading or a line of a page, in English and in Japanese.
LABELS: dict[str, M] = {
    # --- regrade records (regrade.py) -----------------------------------------------------------------
    "regrade_title": M("Regrade {stamp}", "再採点 {stamp}"),
    "regrade_tests": M("Tests: {tests}", "テスト: {tests}"),
    "regrade_count": M("{n} submissions graded again; {changed} changed", "{n} 件を再採点し、{changed} 件が変わりました"),
    "regrade_from": M("from", "前"),
    "regrade_to": M("to", "後"),
    "regrade_not_again": M("Not graded again:", "再採点していないもの:"),
    "regrade_why": M("why", "理由"),
    # --- resume records (changes.py, batch.py) --------------------------------------------------------
    "resume_title": M("Resume {stamp}", "再開 {stamp}"),
    "resume_count": M("{changed} final scores changed", "最終得点が変わったもの {changed} 件"),
}

