"""What grader/outputs/ says, in English and in Japanese.

Its sentences: the gradebooks, the gradebook page, the class summary, the similarity page.

Every key here is said by code of grader/outputs/ (the comment above each group names the modules of
grader/outputs/ that say it). A sentence that code of two areas says is kept once, in the table of
the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table
to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- a gradebook row or a summary entry not graded (gradebook.py, summary.py) ---------------------
    "not_graded": M("not graded: {why}", "採点していません: {why}"),
    # --- the gradebooks (gradebook.py) ----------------------------------------------------------------
    "rows_grade": M("{file}: {rows} rows, {graded} with a grade", "{file}: {rows} 行、うち成績のある行 {graded}"),
    "no_grade": M("  no grade for {who}: {why}", "  {who} には成績がありません: {why}"),
    "left_out": M("  left out {who}: {why}", "  {who} は含めていません: {why}"),
    "moodle_written_for_en": M(
        "  {file} is in the words of Moodle shown in English (Identifier, Grade, Last modified (grade)): import it "
        "with English as your Moodle language, or pass a worksheet downloaded in Japanese with --worksheet",
        "  {file} は英語表示の Moodle の列名（Identifier, Grade, Last modified (grade)）で書いてあります。Moodle の言語を"
        "英語にしてインポートするか、日本語表示でダウンロードした採点ワークシートを --worksheet で渡してください"),
    "moodle_written_for_ja": M(
        "  {file} is in the words of Moodle shown in Japanese (ID, 評点, 最終更新日時 (評定)): import it with Japanese "
        "as your Moodle language, or pass a worksheet downloaded in English with --worksheet",
        "  {file} は日本語表示の Moodle の列名（ID、評点、最終更新日時 (評定)）で書いてあります。Moodle の言語を日本語に"
        "してインポートするか、英語表示でダウンロードした採点ワークシートを --worksheet で渡してください"),
    # --- the LMS gradebooks and the course gradebook (lms_gradebooks.py, course_gradebook.py) ---------
    "canvas_user_id_anonymous": M(
        "not a Canvas user id: an anonymous id (anonymous grading); enter the score by hand",
        "Canvas のユーザー ID ではありません: 匿名採点の ID です。得点は手で入力してください"),
    "canvas_user_id_entry": M(
        "not a Canvas user id: the entry is not named as Canvas names its downloads",
        "Canvas のユーザー ID ではありません: Canvas のダウンロードの名前の形ではありません"),
    "moodle_participant_id_entry": M(
        "not a Moodle participant id: the entry is not named as Moodle names its downloads",
        "Moodle の参加者 ID ではありません: Moodle のダウンロードの名前の形ではありません"),
    "canvas_gradebook_export_enrolled": M(
        "not in the Canvas gradebook export (not enrolled, or the export is older)",
        "Canvas から書き出した成績表にいません（履修していないか、書き出しが古いか）"),
    "rows_claim_student_check": M(
        "{n} rows claim this student ({entries}); check by hand whose each is",
        "{n} 行がこの学生のものだとしています（{entries}）。どれが誰のものか確認してください"),
    "batch_flagged_row_doubt": M("the batch flagged the row in doubt: {why}", "一括採点がこの行を要確認としました: {why}"),
    "no_score_batch_s": M("no score in the batch's gradebook", "一括採点の成績表に得点がありません"),
    "gradebook_canvas_needs_canvas": M(
        "--gradebook canvas needs the Canvas assignment: pass --canvas-gradebook EXPORT.csv (the gradebook "
        "exported from Canvas, filled in) or --canvas-assignment-id ID (the number at the end of the "
        "assignment's address, …/assignments/ID)",
        "--gradebook canvas には Canvas の課題が必要です: --canvas-gradebook EXPORT.csv（Canvas から書き出した"
        "成績表。そこに書き込みます）か --canvas-assignment-id ID（課題のアドレスの末尾の番号、…/assignments/ID）"
        "を指定してください"),
    "gradebook_so_could_match": M(
        "--gradebook {fmt}: {came}, so {lms} could match none of its students (it knows them by the ids in "
        "its own download names);{ask}",
        "--gradebook {fmt}: {came}。そのため {lms} はどの学生とも対応付けられません（{lms} は自分のダウンロードの"
        "名前にある ID で学生を見分けます）。{ask}"),
    "export_came": M("the export came from {lms}", "書き出しは {lms} のものです"),
    "submissions_plain_folder_lms": M(
        "the submissions are a plain folder, not an LMS download",
        "提出物は LMS のダウンロードではなく、ふつうのフォルダです"),
    "ask": M(" ask for {what}", "{what} を指定してください"),
    "use_gradebook_csv": M(" use gradebook.csv", "gradebook.csv を使ってください"),
    "no_assignment_column_assignment": M(
        "{file}: no assignment column with {what} (its assignment columns: {listed}); pass "
        "--canvas-assignment-id with the number in the column's brackets",
        "{file}: {what} の課題の列がありません（課題の列: {listed}）。列名の括弧の中の番号を "
        "--canvas-assignment-id に指定してください"),
    "more_than_one_assignment": M(
        "{file}: more than one assignment column with {what} (its assignment columns: {listed}); pass "
        "--canvas-assignment-id with the number in the column's brackets",
        "{file}: {what} の課題の列が複数あります（課題の列: {listed}）。列名の括弧の中の番号を "
        "--canvas-assignment-id に指定してください"),
    "id": M("id {id}", "ID {id}"),
    "title": M("the title {title}", "題名 {title}"),
    "reports_pass_rubric_rubric": M(
        "{dir}: its reports are of {other}, not of {mine}; pass the rubric of {first} with --rubric",
        "{dir}: レポートは {other} のもので、{mine} のものではありません。{first} のルーブリックを --rubric で"
        "指定してください"),
    "batch_wrote_rows_reports": M(
        "{book}: the batch wrote {old} rows and the reports give only {new}; not rewritten (a report was "
        "removed or is unreadable): run grader batch again with --resume",
        "{book}: 一括採点は {old} 行を書きましたが、レポートからは {new} 行しか作れません。書き換えていません"
        "（レポートが消されたか読めません）。grader batch を --resume を付けてもう一度実行してください"),
    "no_reports_reports_run": M(
        "{dir}: no reports in {dir}/reports; run grader batch with --out {dir} first",
        "{dir}: {dir}/reports にレポートがありません。先に grader batch を --out {dir} で実行してください"),
    # --- what the gradebooks cannot read or choose (lms_gradebooks.py, course_gradebook.py) -----------
    "canvas_gradebook_export_first": M(
        '{path}: not a Canvas gradebook export (its first columns are not Student, ID); export the gradebook from Canvas (Grades > Export > CSV) and pass that file',
        '{path}: Canvas から書き出した成績表ではありません（最初の列が Student、ID ではありません）。Canvas から成績表を書き出し（Grades > Export > CSV）、そのファイルを指定してください'),
    "found_pass_out_folders": M(
        '{path}: not found; pass the --out folders of grader batch runs',
        '{path}: 見つかりません。grader batch の --out のフォルダを指定してください'),
    "second_gradebook_pass_one": M(
        '{path}: a second gradebook for {assignment}; pass one folder per assignment',
        '{path}: {assignment} の 2 つ目の成績表です。課題ごとに一つのフォルダを指定してください'),
    "cannot_read_canvas_gradebook": M(
        "{path}: cannot read the Canvas gradebook export ({why}); pass the CSV file Canvas's Grades > Export wrote",
        '{path}: Canvas から書き出した成績表を読み取れません（{why}）。Canvas の Grades > Export が書き出した CSV ファイルを指定してください'),
}

#: key -> a word, a heading or a line of a page, in English and in Japanese.
LABELS: dict[str, M] = {
    # --- the gradebook page's review, lateness and extension (gradebook_page.py) ----------------------
    "gb_review_count": M(
        "{review} with an adjustment that needs review (still applied: grader adjust OUT STUDENT --confirm N or "
        "--undo N decides).",
        "うち要確認の調整がある行 {review}（適用したままです。grader adjust OUT STUDENT --confirm N または "
        "--undo N で決めてください）。"),
    "gb_review_legend": M("adjustment needs review", "調整が要確認"),
    "gb_review": M("Needs review", "要確認"),
    "gb_late_flag": M("Late", "遅延"),
    "gb_late_yes": M("late", "遅延"),
    "gb_extension": M("Extension", "期限延長"),
    # --- the gradebook page (gradebook_page.py) -------------------------------------------------------
    # each flag of a gradebook row (its ``flags`` column), in a word: the problems column has the sentence
    "gbflag_empty": M("empty", "空の提出"),
    "gbflag_unreadable": M("unreadable", "読み取り不可"),
    "gbflag_no_work": M("no work", "解答なし"),
    "gbflag_missing": M("files missing", "ファイル不足"),
    "gbflag_interrupted": M("interrupted", "採点中断"),
    "gbflag_duplicate_id": M("id claimed twice", "学生 ID の重複"),
    "gbflag_ambiguous_id": M("whose is unclear", "本人が不確か"),
    "gbflag_not_a_submission": M("not a submission", "提出物ではない"),
    "gbflag_symlink": M("symbolic link", "シンボリックリンク"),
    "gbflag_online_text": M("online text", "オンラインテキスト"),
    "gbflag_doubtful_name": M("name's encoding guessed", "名前の文字コードを推測"),
    "gbflag_system_file": M("system file, skipped", "システムのファイル（採点対象外）"),
    # --- the links between the class's pages (gradebook_page.py) -------------------------------------
    "class_pages": M("The class's pages", "クラスのページ"),
    # --- the class summary (summary.py) ---------------------------------------------------------------
    "summary_title": M("Class summary", "クラス全体のまとめ"),
    "summary_graded": M("Submissions graded", "採点した提出物"),
    "summary_not_graded": M("Entries not graded", "採点できなかった項目"),
    "summary_mean": M("Mean score", "平均点"),
    "summary_median": M("Median score", "中央値"),
    "summary_range": M("Lowest – highest", "最低点 – 最高点"),
    "summary_pass_rate": M("Passed (at or above the pass mark)", "合格（合格点以上）"),
    "summary_parts": M("Mean score per part", "小問ごとの平均点"),
    "summary_mean_col": M("Mean", "平均"),
    "summary_max_col": M("Max", "満点"),
    "summary_tests": M("Pass rate per test", "テストごとの合格率"),
    "summary_rate": M("Passed", "合格率"),
    "summary_hardest": M("Tests fewer students passed, lowest first", "合格した学生が少ないテスト（低い順）"),
    "summary_mistakes": M("Recognised mistakes", "見つかった間違い"),
    "summary_mistake": M("Mistake id", "間違いの ID"),
    "summary_count": M("Submissions", "提出物数"),
    "summary_no_mistakes": M("No known mistake was recognised.", "既知の間違いは見つかりませんでした。"),
    "summary_unrecognised": M("Entries that are not submissions", "提出物として認識できなかった項目"),
    "summary_entry": M("Entry", "項目"),
    "summary_why": M("Why", "理由"),
    "summary_errors": M("Submissions with errors (syntax errors, crashes, timeouts)", "エラーのあった提出物（構文エラー・異常終了・時間切れ）"),
    "summary_timeouts": M("Submissions with a timeout", "時間切れのあった提出物"),
    "summary_first": M("At a glance", "まずここを確認"),
    "summary_central": M("Passed despite the central mistake", "核心の間違いがあっても合格した提出物"),
    "summary_central_row": M(
        "{passed} of {total} submissions with {mid} still passed",
        "{mid} のある提出物 {total} 件のうち {passed} 件が合格"),
    "summary_common": M("Most common mistakes, one example each", "よくある間違い（各 1 例）"),
    "summary_example": M("Example", "例"),
    "summary_error_list": M("Submissions with errors", "エラーのあった提出物"),
    "summary_error_col": M("What went wrong", "起きたこと"),
    "summary_rings": M("Similar submissions: look at these first", "よく似た提出物：まずここを確認"),
    "summary_ring_row": M(
        "Group {g} ({n} submissions, code match up to {best:.2f}): {members}",
        "グループ {g}（{n} 件、コードの一致は最大 {best:.2f}）: {members}"),
    "summary_ring_more": M("Every pair side by side: similarity.en.html", "すべての組を並べて表示: similarity.ja.html"),
    "summary_clusters": M("Failures no known mistake explains, grouped by behaviour", "既知の間違いで説明できない不合格（振る舞いでまとめたもの）"),
    "summary_cluster_draft": M(
        "Make cluster {n} a catalogue entry: grader catalogue draft OUT --cluster {n}",
        "クラスタ {n} をカタログ項目にする: grader catalogue draft OUT --cluster {n}"),
    "summary_items_title": M("Tests: pass rate and discrimination", "テストごとの合格率と識別力"),
    "summary_items_note": M(
        "Discrimination is the correlation between passing the test and the rest of the score; flagged tests may be broken or may not tell students apart.",
        "識別力は、そのテストの合否と残りの得点との相関です。印の付いたテストは、壊れているか、学生の理解度を見分けていない可能性があります。"),
    "summary_disc": M("Discrimination", "識別力"),
    "summary_cases": M("Cases", "ケース数"),
    "summary_items_counted": M(
        "Over {counted} submissions; {left} left out as blank or untouched stubs{names}. A parametrised test's cases count as one test (its score is the share of its cases passed). A test with fewer than {least} counted submissions is too few to judge and is marked so.",
        "対象は {counted} 件の提出物です。空の提出物と雛形のままの提出物 {left} 件は除いています{names}。パラメータ化されたテストのケースはまとめて 1 つのテストとして数えます（得点は合格したケースの割合）。対象が {least} 件未満のテストは、判断するには少なすぎるため、その旨を示します。"),
    "summary_shown_of": M(" ({shown} of {total} shown)", "（全 {total} 件中 {shown} 件を表示）"),
    # --- the similarity page (similarity_page.py) -----------------------------------------------------
    "similarity_title": M("Similar submissions", "よく似た提出物"),
    "similarity_lead": M("Look at these first", "まずここを確認"),
    "similarity_intro": M(
        "Pairs whose code matches beyond what honest students write alike (the handed-out stubs removed; lines many submissions have, in this class and in the course's own correct solutions, weighted down), or that share wrong answers no known mistake explains. A student who shares none of a pair's code or behaviour changes nothing about it. A match is a reason to look, not a finding: read both sides before drawing any conclusion.",
        "正直な学生どうしでも似る部分（配布した雛形は除き、このクラスと授業で用意した正しい解答例で多くの提出物にある行は軽く数えます）を超えてコードが一致する組、または既知の間違いでは説明できない誤答を共有する組です。ある組とコードも振る舞いも共有しない学生は、その組の値を変えません。一致は確認する理由であって結論ではありません。判断する前に両方を読んでください。"),
    "similarity_group": M("Group", "グループ"),
    "similarity_members": M("Submissions", "提出物"),
    "similarity_pair": M("Pair", "組"),
    "similarity_code": M("Code", "コード"),
    "similarity_behaviour": M("Behaviour", "振る舞い"),
    "similarity_shared": M("Shared behaviour", "共通する振る舞い"),
    "similarity_none": M("No pair is similar enough to list.", "一覧に挙げるほど似た組はありません。"),
    "similarity_compared": M("{n} submissions compared", "{n} 件の提出物を比較"),
    "similarity_against": M("; also compared with {old}", "。{old} とも比較"),
    "similarity_ring": M("Group {g} ({n} submissions): {members}", "グループ {g}（{n} 件）: {members}"),
    "similarity_summary_link": M("Similar submissions: every pair, side by side", "よく似た提出物: すべての組を並べて表示"),
    "similarity_capped": M("Left out to keep the comparison quick", "比較を速く保つために省いたもの"),
    "similarity_code_col": M("code {code:.2f}, behaviour {behaviour:.2f}", "コード {code:.2f}、振る舞い {behaviour:.2f}"),
    # --- the gradebooks' feedback column (lms_gradebooks.py) ------------------------------------------
    "fb_score": M("Score {score} / {max}", "得点 {score} / {max}"),
    "fb_late": M(" (late: from {before})", "（期限後: {before} から）"),
    "fb_then": M(". ", "。"),
    "fb_mistakes": M(". Mistakes: {ids}", "。間違い: {ids}"),
    "fb_see_file": M(". See the feedback file for details.", "。詳しくはフィードバックファイルを見てください。"),
}
