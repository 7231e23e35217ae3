"""The grader's sentences in both languages, each kept once under a key.

Every sentence the grader writes for a person (a report's notes and problems, a warning, a
command-line error, a reason in a gradebook row) is an entry of :data:`MESSAGES`: its key, its
English with ``{slots}`` where the words vary, and its Japanese with the same slots. Code says
a sentence by its key and never spells it out:

- :func:`said` gives the English, for what is kept in English (a report's record, an exception's
  message, a gradebook's reason column); the text it returns remembers its key and slots.
- :func:`say` gives the sentence in one language at once, for a line that is shown and not kept.
- :func:`translate` shows kept text in a language. Text that :func:`said` made is rendered from its
  key; English read back from a record (a report on disk, a message that crossed a process) is
  read back to its key by the same table, since every English sentence the grader writes comes
  from it. A slot's own text is translated too when it is one of these sentences ("skipped x.py:
  {problem}"). Text that is none of them (a student's own words) is shown as it is.

The sandbox's own files (``grader/sandbox/zygote.py`` and ``grader/sandbox/wire.py``) run where the
``grader`` package is not importable; the few English sentences they send back are entries here
all the same, read back by the table.

What other programs write and the grader passes on inside its own sentences (the OS's "No such
file or directory", PyYAML's "mapping values are not allowed here") is kept apart in
:data:`FOREIGN`: never said, only read back, so that it is shown in Japanese too.

Example::

    note = said("skipped", name="scaling.py", problem=said("symbolic_link_file"))
    str(note)              # 'skipped scaling.py: it is a symbolic link, not a file'
    translate(note, "ja")  # 'scaling.py を読み飛ばしました: シンボリックリンクで、ファイルではありません'
    say("not_graded", "ja", why="no report")
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple, TypedDict

__all__ = ["FOREIGN", "LABELS", "MESSAGES", "M", "Both", "Said", "both", "by_lang", "by_name", "error_text", "in_both", "label",
           "one_language",
           "pair", "said", "say", "table", "translate"]


class M(NamedTuple):
    """One sentence in both languages; the slots (``{name}``) are the same on both sides."""

    en: str
    ja: str


#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- plain reasons a gradebook row holds no grade (grader/ingest/discovery.py, grader/outputs/gradebook.py) --
    "empty": M("the upload is empty: no files in it", "提出物が空です（ファイルがありません）"),
    "unreadable": M("the upload could not be read: {why}", "提出物を読み取れませんでした: {why}"),
    "no_work": M("no {files}, answers.yaml, notebook or zip in it",
                 "{files}・answers.yaml・ノートブック・zip のどれも含まれていません"),
    "missing": M("missing: {files}", "未提出のファイル: {files}"),
    "interrupted": M("not graded (the batch was interrupted)", "採点していません（一括採点が中断されました）"),
    "duplicate_id": M(
        "more than one entry claims student id {id} ({entries}); check by hand which is theirs",
        "学生 ID {id} を名乗る項目が複数あります（{entries}）。どれが本人のものか確認してください"),
    "ambiguous_id": M(
        "the LMS name can be read as student {id} or {others}; check by hand whose it is",
        "LMS の名前は学生 {id} とも {others} とも読めます。誰の提出か確認してください"),
    "not_a_submission": M("not a folder, notebook or zip", "フォルダ・ノートブック・zip のいずれでもありません"),
    "symlink": M("a symbolic link; not followed", "シンボリックリンクなので辿りません"),
    "online_text": M("online text, not files", "オンラインテキストの提出で、ファイルではありません"),
    "doubtful_name": M(
        "the name {entry} in the zip has no UTF-8 mark and reads cleanly in no known encoding (read as "
        "{encoding}); check the student's name by hand",
        "zip の中の名前 {entry} には UTF-8 の印がなく、どの既知の文字コードでも正しく読めません（{encoding} "
        "として読みました）。学生の名前を確認してください"),
    "not_graded": M("not graded: {why}", "採点していません: {why}"),
    # --- reading a submission (grader/ingest/submission.py) ---------------------------------------
    "skipped": M("skipped {name}: {problem}", "{name} を読み飛ばしました: {problem}"),
    "symbolic_link_file": M("it is a symbolic link, not a file", "シンボリックリンクで、ファイルではありません"),
    "regular_file": M("it is not a regular file", "通常のファイルではありません"),
    "over_limit_one_file": M(
        "it is {size}, over the {limit} limit for one file",
        "大きさが {size} で、1 ファイルの上限 {limit} を超えています"),
    "over_limit": M("over the {limit} limit", "上限 {limit} を超えています"),
    "notebook_over_limit": M(
        "{where}: the notebook is {size}, over the {limit} limit; clear its outputs (Kernel > Restart & Clear "
        "Output) and save it again",
        "{where}: ノートブックの大きさが {size} で、上限 {limit} を超えています。出力を消して（Kernel > "
        "Restart & Clear Output）保存し直してください"),
    "zip_only_py_files": M(
        "zip only your .py files and answers.yaml, or your notebook",
        ".py ファイルと answers.yaml だけか、ノートブックだけを zip にしてください"),
    "not_a_submission_expected": M(
        "{path}: not a submission: expected a folder with {files}, a .ipynb notebook or a .zip of either{hint}",
        "{path}: 提出物ではありません。{files} のあるフォルダ、.ipynb のノートブック、またはそのどちらかの "
        ".zip を指定してください{hint}"),
    "assignment_py_files": M("the assignment's .py files", "課題の .py ファイル"),
    "held_notebooks_graded": M(
        "{origin} held {n} notebooks ({listed}); graded {chosen}",
        "{origin} にノートブックが {n} 個ありました（{listed}）。{chosen} を採点しました"),
    "folder": M("folder", "フォルダ"),
    "zip": M("zip", "zip"),
    "used_answers_cell_ignored": M(
        "used the answers cell of {chosen}; ignored answers.yaml",
        "{chosen} の答えのセルを使い、answers.yaml は使いませんでした"),
    "used_answers_yaml_answers": M(
        "used answers.yaml; the answers cell of {chosen} is as handed out",
        "answers.yaml を使いました。{chosen} の答えのセルは配布時のままです"),
    "used_answers_cell_answers": M(
        "used the answers cell of {chosen}: answers.yaml is as handed out",
        "{chosen} の答えのセルを使いました。answers.yaml は配布時のままです"),
    "ignored_py_files_were": M(
        "ignored {notebooks}: the .py files were graded (to grade the notebook, submit it on its own)",
        "{notebooks} は使わず、.py ファイルを採点しました（ノートブックを採点するには、"
        "ノートブックだけを提出してください）"),
    "graded_differs_handed_out": M(
        "graded {notebook}: it differs from the handed-out notebook and the .py files are as handed out",
        "{notebook} を採点しました。配布時のノートブックから書き換えられていて、.py ファイルは配布時のままです"),
    "both_py_files_differ": M(
        "both {notebook} and the .py files ({files}) differ from what was handed out: graded the .py "
        "files and not {notebook}",
        "{notebook} と .py ファイル（{files}）の両方が配布時から書き換えられています。.py ファイルを"
        "採点し、{notebook} は採点していません"),
    "neither_py_files_nor": M(
        "neither the .py files nor {notebook} differ from what was handed out: graded the .py files "
        "as they are",
        ".py ファイルも {notebook} も配布時のままです。.py ファイルをそのまま採点しました"),
    "found_none_no_other": M(
        "found none of {files}, and no other .py files",
        "{files} のどれも見つからず、ほかの .py ファイルもありません"),
    "found_none_py_files": M(
        "found none of {files}; .py files present: {present}",
        "{files} のどれも見つかりません。ある .py ファイル: {present}"),
    "found_none_py_files_rename": M(
        "found none of {files}; .py files present: {present}; {renames}",
        "{files} のどれも見つかりません。ある .py ファイル: {present}。{renames}"),
    "found_no_py_files": M(
        "found no {missing}; .py files present: {present}",
        "{missing} が見つかりません。ある .py ファイル: {present}"),
    "found_no_py_files_rename": M(
        "found no {missing}; .py files present: {present}; {renames}",
        "{missing} が見つかりません。ある .py ファイル: {present}。{renames}"),
    "rename_to": M("rename {name} to {to}?", "{name} を {to} に名前を変えてはどうですか"),
    "valid_utf_8_unreadable": M(
        "{label} is not valid UTF-8; unreadable bytes were replaced by \ufffd",
        "{label} は正しい UTF-8 ではありません。読めないバイトは \ufffd に置き換えました"),
    "valid_unreadable_bytes_were": M(
        "{label} is not valid {encoding}; unreadable bytes were replaced by \ufffd",
        "{label} は正しい {encoding} ではありません。読めないバイトは \ufffd に置き換えました"),
    "declares_encoding_cannot_read": M(
        "{label} declares the encoding {encoding}, which cannot read it; it was read as UTF-8 (save it as UTF-8)",
        "{label} は文字コード {encoding} を宣言していますが、その文字コードでは読めません。UTF-8 として読みました"
        "（UTF-8 で保存してください）"),
    "does_fully_follow_notebook": M(
        "{filename} does not fully follow the notebook format ({first}); read it anyway",
        "{filename} はノートブックの形式に完全には従っていません（{first}）。そのまま読み込みました"),
    "cell_second_answers_cell": M(
        "{filename}: cell {n} is a second answers cell; used the first",
        "{filename}: セル {n} は 2 つ目の答えのセルです。最初のセルを使いました"),
    "ipython_magics_shell_commands": M(
        "{filename}: IPython magics and shell commands are not run when grading: {what}",
        "{filename}: IPython のマジックコマンドとシェルコマンドは採点では実行しません: {what}"),
    "and_more": M("{what}; and {n} more", "{what}、ほか {n} 件"),
    "ignored_zip": M("ignored {what} in the zip", "zip の中の {what} は使いませんでした"),
    # --- finding submissions in a batch (grader/workflows/batch.py) ------------------------------------
    # (each entry's reason is one of the plain reasons at the top of this table)
    "set_aside": M("{why}; set aside: {files}", "{why}。採点しなかったファイル: {files}"),
    "set_aside_not_graded": M("set aside (not graded): {files}", "採点しなかったファイル: {files}"),
    "cannot_read": M("{what}: cannot read it ({why})", "{what}: 読み取れません（{why}）"),
    "cannot_read_2": M("cannot read it ({why})", "読み取れません（{why}）"),
    "cannot_read_save_create": M(
        "{what}: cannot read it ({why}); save or create it again as ordinary files, a .ipynb notebook or a plain .zip",
        "{what}: 読み取れません（{why}）。普通のファイル、.ipynb ノートブック、または普通の .zip として保存し直してください"),
    "cannot_read_create_zip": M(
        "{what}: cannot read it ({why}); create the zip without a password",
        "{what}: 読み取れません（{why}）。パスワードなしで zip を作り直してください"),
    "cannot_read_create_zip_3": M(
        "{what}: cannot read it ({why}); create the zip again with ordinary compression",
        "{what}: 読み取れません（{why}）。普通の圧縮方式で zip を作り直してください"),
    "readable_zip_file_create": M(
        "{what}: not a readable zip file ({why}); create the zip again",
        "{what}: zip ファイルとして読み取れません（{why}）。zip を作り直してください"),
    "zip_holds_two_entries": M(
        "{what}: the zip holds two entries named {name}; create the zip again with one copy of each file",
        "{what}: zip の中に {name} という名前が二つあります。各ファイルを一つずつ入れて zip を作り直してください"),
    "refused_zip_holds_entry": M(
        "{what}: refused: the zip holds an entry named {name}, which points outside the zip; create the zip again from your folder",
        "{what}: 受け付けません: zip の中の {name} という名前は zip の外を指しています。フォルダから zip を作り直してください"),
    "symbolic_link_followed_put": M(
        "{entry}: a symbolic link; not followed (put the files themselves in the folder)",
        "{entry}: シンボリックリンクなので辿りません（ファイルそのものをフォルダに入れてください）"),
    "another_zip_same_upload": M("{name} (another zip in the same upload)", "{name}（同じ提出の別の zip）"),
    "could_unpacked": M("{name} could not be unpacked ({why})", "{name} を展開できませんでした（{why}）"),
    "files_could_put_together": M("its files could not be put together ({why})", "ファイルをまとめられませんでした（{why}）"),
    "name_has_no_utf": M(
        "the name {entry} has no UTF-8 mark in the zip; read as {encoding}",
        "zip の中の名前 {entry} には UTF-8 の印がないため、{encoding} として読みました"),
    "name_has_no_utf_2": M(
        "the name {entry} has no UTF-8 mark in the zip; read as {encoding}; it may be garbled: check it by hand",
        "zip の中の名前 {entry} には UTF-8 の印がないため、{encoding} として読みました。文字化けして"
        "いるかもしれません。確認してください"),
    "another_entry_batch_also": M(
        "another entry of the batch is also named {base}; this one's reports are named {name}",
        "一括採点の別の項目も {base} という名前です。この項目のレポートの名前は {name} です"),
    # --- the gradebooks (grader/outputs/gradebook.py, grader/outputs/course_gradebook.py) -----------------------------
    "rows_grade": M("{file}: {rows} rows, {graded} with a grade", "{file}: {rows} 行、うち成績のある行 {graded}"),
    "no_grade": M("  no grade for {who}: {why}", "  {who} には成績がありません: {why}"),
    "left_out": M("  left out {who}: {why}", "  {who} は含めていません: {why}"),
    # --- click's own usage errors, said again in Japanese (grader/cli/__init__.py) ---------------------------
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
    "adjust_recorded_views_not": M(
        "entry #{n} is in the ledger (do not make it again; grader ledger OUT lists it), but the gradebooks "
        "were not all written again: {why}",
        "記録 #{n} は台帳に入りました（もう一度行わないでください。grader ledger OUT で確かめられます）。"
        "ただし成績表をすべては書き直せませんでした: {why}"),
    "similarity_against_names": M(
        "{out} is a blind batch, and --against {old} names its students: grade {old} with --anonymous too, "
        "or compare {out} without --against",
        "{out} は匿名の採点ですが、--against の {old} は学生を名前で示しています。{old} も --anonymous で採点するか、"
        "--against なしで {out} を比べてください"),
    "course_written": M(
        "{n} students, {k} assignments ({names}): {out}",
        "学生 {n} 人、課題 {k} 件（{names}）: {out}"),
    "course_unblinded": M(
        "{folder}: a blind batch; its students are named here by their own ids, from its identities.csv",
        "{folder}: 匿名で採点した結果です。ここでは identities.csv により各学生を本来の ID で示します"),
    "no_score": M(
        "  no score for {student} in {assignment}: {why}",
        "  {student} の {assignment} には得点を入れていません: {why}"),
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
    "assignment_name_most_characters": M(
        "{name}: an assignment name is at most {max} characters (this one has {n}); pick a shorter name "
        "(e.g. chapter09)",
        "{name}: 課題の名前は {max} 文字までです（この名前は {n} 文字）。短い名前にしてください（例: chapter09）"),
    # --- the rubric's parts (grader/spec/rubric.py) ---------------------------------------------
    # (a rubric error's problem and its fix are translated apart: grader.i18n.messages.error_text)
    "neither_nor": M(
        "{file} is in neither {first} nor {second}",
        "{file} は {first} にも {second} にもありません"),
    "file": M("{file} is not a file in {folder}", "{file} は {folder} のファイルではありません"),
    "write_file_s_name": M(
        "write the file's name as it is in {first} or {second}",
        "{first} か {second} にあるとおりにファイル名を書いてください"),
    "write_file_s_name_2": M("write the file's name as it is in {folder}", "{folder} にあるとおりにファイル名を書いてください"),
    "defined_neither_nor": M(
        "{func} is defined in neither {first} nor {second}",
        "{func} は {first} にも {second} にも定義されていません"),
    "defined": M("{func} is not defined in {file}", "{func} は {file} に定義されていません"),
    "write_function_defines": M("write a function {file} defines: {names}", "{file} が定義している関数を書いてください: {names}"),
    "defines_no_function_yet": M(
        "{file} defines no function yet: write one, or leave it out of functions:",
        "{file} にはまだ関数が定義されていません。関数を書くか、functions: から外してください"),
    "file_found_rubric_s": M(
        "file not found: {path} ({raw} from the rubric's folder)",
        "ファイルが見つかりません: {path}（ルーブリックのフォルダから見て {raw}）"),
    "create_correct_path": M("create it, or correct the path ({example})", "ファイルを作るか、パスを直してください（{example}）"),
    "did_you_mean_write": M("did you mean {near}? write file: {name}", "{near} のことですか。file: {name} と書いてください"),
    "did_you_mean_write_2": M("did you mean {near}? write {name}", "{near} のことですか。{name} と書いてください"),
    # --- grading (grader/grading/runner.py, the worker) --------------------------------------------
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
    "tests_need_py_could": M(
        "{where}: {what} — the tests that need {module}.py could not run",
        "{where}: {what} — {module}.py が必要なテストを実行できませんでした"),
    "importing_did_finish_within": M(
        "importing {filename} did not finish within {seconds} s; it was stopped",
        "{filename} の読み込みが {seconds} 秒以内に終わらなかったため、停止しました"),
    "running_cell_did_not_finish": M(
        "running {cell} did not finish within {seconds} s; it was stopped and the other cells ran without it",
        "{cell} の実行が {seconds} 秒以内に終わらなかったため停止し、ほかのセルはこのセルなしで実行しました"),
    "running_cell_ended_worker": M(
        "running {cell} ended the worker process: {what}; the other cells ran without it",
        "{cell} の実行で採点用プロセスが終了しました: {what}。ほかのセルはこのセルなしで実行しました"),
    "importing_ended_worker_process": M(
        "importing {filename} ended the worker process: {what}",
        "{filename} の読み込みで採点用プロセスが終了しました: {what}"),
    "loading_submission_took_longer": M(
        "loading the submission took longer than the time limit",
        "提出物の読み込みが制限時間を超えました"),
    "test_itself_raised": M(
        "{test}: the test itself raised {name}: {what}",
        "{test}: テスト自体が {name} を送出しました: {what}"),
    "no_py_submission": M("no {part}.py in the submission", "提出物に {part}.py がありません"),
    "defines_no_function": M("{file} defines no function {func}()", "{file} に関数 {func}() が定義されていません"),
    "line": M("{file}, line {line}: {what}", "{file} の {line} 行目: {what}"),
    "printed_too_much": M(
        "the student's code printed more than {total} KiB of output ({factor} times the {cap} KiB kept); it was stopped",
        "学生のコードが {total} KiB を超える出力をしました（保存する {cap} KiB の {factor} 倍）。停止しました"),
    "started_a_process": M(
        "the student's code started another process, which the limits forbid (processes: {processes}); it was stopped",
        "学生のコードが別のプロセスを起動しました。制限で禁じられています（プロセス数: {processes}）。停止しました"),
    "ended_worker_signal": M("the student's code ended the worker process with {name}",
                             "学生のコードが採点用プロセスを {name} で終了させました"),
    "ended_worker_signal_why": M("the student's code ended the worker process with {name} ({why})",
                                 "学生のコードが採点用プロセスを {name} で終了させました（{why}）"),
    "hint_cpu_limit": M("CPU time limit", "CPU 時間の制限"),
    "hint_time_or_memory": M("killed: time or memory limit", "時間かメモリの制限で強制終了"),
    "hint_forbidden_call": M("a forbidden system call, e.g. starting a process", "禁じられたシステムコール。例: プロセスの起動"),
    "hint_crashed": M("crashed", "異常終了"),
    "ended_worker_exit": M("the student's code ended the worker process (exit status {status})",
                           "学生のコードが採点用プロセスを終了させました（終了ステータス {status}）"),
    "call_over_per_call": M("{func}() did not return within the per-call limit of {seconds} s; it was stopped",
                            "{func}() が 1 回の呼び出しの制限時間 {seconds} 秒以内に戻りませんでした。停止しました"),
    "call_over_per_submission": M(
        "{func}() did not return within the per-submission limit of {seconds} s; it was stopped",
        "{func}() が提出物全体の制限時間（残り {seconds} 秒）以内に戻りませんでした。停止しました"),
    "during_call": M("during {func}(): {what}", "{func}() の実行中: {what}"),
    "loading_submission_failed": M("loading the submission: {what}", "提出物の読み込み中: {what}"),
    "unsendable_value": M("a {type} that cannot be returned ({why})", "返せない {type}（{why}）"),
    "opaque_value": M("a {type} object", "{type} のオブジェクト"),
    "no_answer_within_s": M("no answer within {seconds} s", "{seconds} 秒以内に応答がありませんでした"),
    "submission_used_up_s": M("the submission used up its {seconds} s", "提出物全体の制限時間 {seconds} 秒を使い切りました"),
    "worker_process_died": M("the worker process died", "採点用プロセスが終了しました"),
    "worker_could_started_again": M("the worker could not be started again", "採点用プロセスを再起動できませんでした"),
    "worker_s_channel_closed": M("the worker's channel is closed", "採点用プロセスとの通信が閉じられました"),
    "worker_sent_invalid_frame": M("the worker sent an invalid frame: {what}", "採点用プロセスから不正なデータが届きました: {what}"),
    # --- checks that pass with a remark (grader/kit/asserts.py) ---------------------------------
    "agrees_float64_result_only": M(
        "{what} agrees with the float64 result only to a relative {error}: a constant such as 1/√d_k was "
        "rounded to float32 (not counted as a mistake; a constant made in the input's dtype keeps float64 "
        "precision)",
        "{what} は float64 の結果と相対誤差 {error} までしか一致しません。1/√d_k のような定数が float32 に"
        "丸められています（間違いとしては数えません。定数を入力と同じ dtype で作れば float64 の精度が保てます）"),
    # --- the notebook's check cell (grader/notebook.py) --------------------------------------
    "run_cells_define_these": M(
        "run the cells that define these functions first, then check again: {functions}",
        "先に、次の関数を定義しているセルを実行してから、もう一度チェックしてください: {functions}"),
    # --- the sandbox (grader/sandbox/level.py) ---------------------------------------------
    "weak_sandbox_rlimits_only": M("weak sandbox (rlimits only): {why}", "弱いサンドボックスです（rlimits のみ）: {why}"),
    "sandbox_weakened_request_rlimits": M(
        "sandbox weakened on request: rlimits only",
        "指定により弱いサンドボックスで採点しました: rlimits のみ"),
    "sandbox_weakened_request": M("sandbox weakened on request: {what}", "指定により弱いサンドボックスで採点しました: {what}"),
    "weak_sandbox": M("weak sandbox: {why}: {what}", "弱いサンドボックスです: {why}: {what}"),
    "sandbox_weakened_on_request": M("sandbox weakened on request", "指定により弱いサンドボックスを使います"),
    "weak_sandbox_because": M("weak sandbox: {why}", "弱いサンドボックスです: {why}"),
    "rlimits_sandbox_needs_fork": M(
        "the rlimits sandbox needs fork and {why}", "rlimits のサンドボックスには fork が必要ですが、{why}"),
    "rlimits_needs_fork_weak": M(
        "the rlimits sandbox needs fork and {why}: {what}",
        "rlimits のサンドボックスには fork が必要ですが、{why}: {what}"),
    "only_weak_sandbox_could": M(
        "{why}; only the weak '{level}' sandbox could run. Pass --allow-weak-sandbox to grade with it ({what}; "
        "student code could read files and reach the network).",
        "{why}。弱い '{level}' サンドボックスしか動きません。それで採点するには --allow-weak-sandbox を指定して"
        "ください（{what}。学生のコードがファイルを読んだりネットワークにつないだりできます）。"),
    "one_plain_process_per": M(
        "one plain process per submission: time and output limits, a cleared environment, no "
        "filesystem or network isolation",
        "提出物ごとに通常のプロセスを一つ使います。時間と出力の上限、空にした環境変数はありますが、"
        "ファイルシステムとネットワークの隔離はありません"),
    "refusing_grade_level_student": M(
        "refusing to grade at the {level} level: student code would run as root, and {why}. Install "
        "Python, torch and the grader where every user can read them (a system Python, not one inside "
        "a private home folder, or point GRADER_WORKER_PYTHON at such an interpreter with the same "
        "torch), or make the namespace sandbox work (bubblewrap with user namespaces)",
        "{level} レベルでは採点しません: 学生のコードが root として動くことになり、しかも{why}。"
        "Python、torch、採点システムをすべてのユーザーが読める場所にインストールするか（個人用の"
        "ホームフォルダの中ではなくシステムの Python。または同じ torch を持つそのような Python を "
        "GRADER_WORKER_PYTHON で指定する）、名前空間のサンドボックス（ユーザー名前空間が使える "
        "bubblewrap）が動くようにしてください"),
    "unprivileged_user_nobody_cannot": M(
        "the unprivileged user nobody cannot read Python's own files in {folder}",
        "権限のないユーザー nobody が {folder} にある Python 自身のファイルを読めません"),
    "no_folder_root_s": M(
        "no folder of root's own for the students' user ids (/run/grader-student-uids)",
        "学生のユーザー ID を管理する root 専用のフォルダがありません（/run/grader-student-uids）"),
    "every_user_id_held": M(
        "every user id from {first} to {last} is held by another grading worker",
        "{first} から {last} までのユーザー ID はすべて、ほかの採点ワーカーが使っています"),
    "no_user_id_own": M(
        "no user id of its own was given to this grading worker",
        "この採点ワーカーには専用のユーザー ID が渡されていません"),
    "scratch_folder_could_handed": M(
        "the scratch folder could not be handed to the unprivileged user nobody ({what})",
        "作業用フォルダを権限のないユーザー nobody に渡せませんでした（{what}）"),
    "refusing_grade_level_student_2": M(
        "refusing to grade at the {level} level: student code would run as your user ({user}), which "
        "can read {what}. Make the namespace sandbox work (install bubblewrap and allow user "
        "namespaces), or grade as root so that student code runs as the unprivileged user nobody",
        "{level} レベルでは採点しません: 学生のコードがあなたのユーザー（{user}）として動くことになり、"
        "そのユーザーは {what} を読めます。名前空間のサンドボックスが動くようにするか（bubblewrap を"
        "インストールし、ユーザー名前空間を許可する）、root として採点して学生のコードが権限のない"
        "ユーザー nobody として動くようにしてください"),
    "platform_has_no_fork": M("this platform has no fork (Windows)", "この環境には fork がありません（Windows）"),
    "os_fork_available_here": M("os.fork is not available here", "ここでは os.fork が使えません"),
    # --- grading on a cluster (grader/engines/dask.py, grader/engines/dask_worker.py) ----------------
    "needs_package_which_installed": M(
        "{what} needs the {module} package, which is not installed ({why}); install it with: "
        "pip install \"grader[{extra}]\"",
        "{what} には {module} パッケージが必要ですが、インストールされていません（{why}）。"
        "次のコマンドでインストールしてください: pip install \"grader[{extra}]\""),
    "no_such_scheduler_file": M(
        "{spec}: no such scheduler file; pass the file that dask scheduler --scheduler-file wrote, or "
        "the scheduler's tcp:// or tls:// address",
        "{spec}: そのようなスケジューラファイルはありません。dask scheduler --scheduler-file が書き出した"
        "ファイルか、スケジューラの tcp:// または tls:// のアドレスを指定してください"),
    "cluster_expected_tcp_tls": M(
        "--cluster {spec}: expected a tcp:// or tls:// address, a scheduler file (.json) or a cluster "
        "file (.yaml)",
        "--cluster {spec}: tcp:// または tls:// のアドレス、スケジューラファイル（.json）、"
        "クラスタファイル（.yaml）のどれかを指定してください"),
    "cannot_read_cluster_file": M("{path}: cannot read the cluster file ({why})", "{path}: クラスタファイルを読み込めません（{why}）"),
    "cluster_file_valid_yaml": M(
        "{path}: the cluster file is not valid YAML ({problem})",
        "{path}: クラスタファイルは正しい YAML ではありません（{problem}）"),
    "cluster_file_must_mapping": M(
        "{path}: the cluster file must be a mapping with the key kind ({kinds}) or scheduler (an address)",
        "{path}: クラスタファイルには、キー kind（{kinds}）か scheduler（アドレス）を持つ対応表を書いてください"),
    "kind_scheduler_give_one": M(
        "{path}: kind and scheduler: give one of them (kind starts a cluster, scheduler names a running one)",
        "{path}: kind と scheduler: どちらか一方だけを書いてください（kind はクラスタを起動し、scheduler は"
        "動いているスケジューラを指します）"),
    "workers_whole_number_least": M(
        "{path}: workers: {value} is not a whole number of at least 1",
        "{path}: workers: {value} は 1 以上の整数ではありません"),
    "unknown_key_beside_scheduler": M(
        "{path}: {key}: unknown key beside scheduler; use only scheduler, security and task_resources",
        "{path}: {key}: scheduler と一緒には使えないキーです。scheduler、security、task_resources だけを書いてください"),
    "scheduler_tcp_tls_address": M(
        "{path}: scheduler: {value} is not a tcp:// or tls:// address",
        "{path}: scheduler: {value} は tcp:// または tls:// のアドレスではありません"),
    "kind_one": M(
        "{path}: kind: {value} is not one of {kinds}",
        "{path}: kind: {value} は {kinds} のどれでもありません"),
    "option_kind_options": M(
        "{path}: {key}: not an option of {cls} (kind: {kind}); its options are {options}",
        "{path}: {key}: {cls}（kind: {kind}）のオプションではありません。使えるオプションは {options} です"),
    "security_must_mapping": M(
        "{path}: security: must be a mapping with {keys}",
        "{path}: security: には {keys} を持つ対応表を書いてください"),
    "security_unknown_key_use": M(
        "{path}: security.{key}: unknown key; use {keys}",
        "{path}: security.{key}: 不明なキーです。{keys} を使ってください"),
    "security_missing_mutual_tls": M(
        "{path}: security.{key}: missing; mutual TLS needs the CA, this machine's certificate and its key "
        "(PEM files)",
        "{path}: security.{key}: ありません。相互 TLS には CA、このマシンの証明書、その鍵（PEM ファイル）が必要です"),
    "security_no_such_file": M(
        "{path}: security.{key}: no such file {value}",
        "{path}: security.{key}: ファイル {value} がありません"),
    "cluster_cannot_reach_scheduler": M(
        "--cluster {spec}: cannot reach the scheduler ({why}); check the address, that the scheduler "
        "runs, and the security: certificates",
        "--cluster {spec}: スケジューラに接続できません（{why}）。アドレス、スケジューラが動いていること、"
        "security: の証明書を確かめてください"),
    "dask_worker_cannot_grade": M(
        "the Dask worker on {host} cannot grade: {why}",
        "{host} の Dask ワーカーでは採点できません: {why}"),
    "rubric_suites_differ_client": M(
        "the rubric or its suites at {path} differ from the client's; give every node the same course folder",
        "{path} のルーブリックかテストが、採点を始めたマシンのものと違います。すべてのノードに同じ授業フォルダを"
        "置いてください"),
    "grading_processes_keep_stopping": M(
        "its grading processes keep stopping (see grader-logs in the worker's folder)",
        "採点用プロセスが何度も終了しています（ワーカーのフォルダの grader-logs を見てください）"),
    "holds_another_batch_s": M(
        "it holds another batch's grading processes (another rubric or seed)",
        "別の採点（別のルーブリックかシード）の採点用プロセスを持っています"),
    "grading_worker_stopped": M(
        "a grading worker on {host} stopped: {message}",
        "{host} の採点用プロセスが停止しました: {message}"),
    "shard_failed_cluster": M("a shard failed on the cluster: {what}", "クラスタでの採点の一部が失敗しました: {what}"),
    "grading_process_stopped_three": M(
        "its grading process stopped three times while grading it; it was not graded",
        "採点中に採点用プロセスが 3 回終了したため、採点していません"),
    "grading_stopped_dask_worker": M(
        "grading it stopped its Dask worker every time it was tried; it was not graded (the worker's log "
        "has details)",
        "採点するたびに Dask ワーカーが終了したため、採点していません（詳しくはワーカーのログにあります）"),
    # --- the command line (grader/cli/__init__.py, grader/spec/rubric.py) --------------------------------
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
    "no_rubric_found_looked": M(
        "no rubric found: looked for {folder}/*.yaml in every folder {walks}. Run the command inside "
        "the course or release folder (or any folder in it), or pass {option}",
        "ルーブリックが見つかりません: {walks}のすべてのフォルダで {folder}/*.yaml を探しました。"
        "授業またはリリースのフォルダ（その中のどのフォルダでも可）で実行するか、{option} を"
        "指定してください"),
    "up": M("from {start} up to {top}", "{start} から {top} まで"),
    "up_and": M("{walk}; {more}", "{walk}、{more}"),
    "holds_rubrics_neither_working": M(
        "{folder} holds {n} rubrics ({listed}) and neither the working folder nor the submission lies "
        "in one's exercises folder; pass {option} to choose one",
        "{folder} にはルーブリックが {n} 個あり（{listed}）、作業中のフォルダも提出物も、どれの "
        "exercises フォルダにも入っていません。{option} でどれかを選んでください"),
    "grade_file_pass_folder": M(
        " (to grade this file, pass the folder that holds it)",
        "（このファイルを採点するには、それが入っているフォルダを指定してください）"),
    "cannot_read_check_path": M(
        "{path}: cannot read it ({why}); check that the path is readable",
        "{path}: 読み込めません（{why}）。読み取れるパスか確かめてください"),
    "no_such_rubric_pass": M(
        "{path}: no such rubric. Pass --rubric with the path of a rubric YAML file, or leave --rubric "
        "out to use the rubrics/ folder of the course or release you are in.",
        "{path}: そのようなルーブリックはありません。--rubric にルーブリックの YAML ファイルのパスを"
        "指定するか、--rubric を省いて、いま居る授業またはリリースの rubrics/ フォルダを使ってください。"),
    # --- the ledger of hand adjustments (grader/report/ledger.py, grader/workflows/adjust.py) -----------------
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
    "adjust_part": M("part {part}", "小問「{part}」"),
    "has_no_part_parts": M(
        "{out}: {student} has no part {part}; its parts are {parts}",
        "{out}: {student} には小問 {part} がありません。小問は {parts} です"),
    "no_adjustment_see_grader": M(
        "{out}: no adjustment {n} of {student} to {what}; see grader ledger {out}",
        "{out}: {student} の調整 {n} は{what}できません。grader ledger {out} で確かめてください"),
    "ledger_entry_written": M("ledger entry {n} written: {what}", "台帳に記録 {n} を書き込みました: {what}"),
    "ledger_verified_entry_chain": M("ledger verified: 1 entry, chain intact", "台帳を検証しました: 記録 1 件、連鎖は壊れていません"),
    "ledger_verified_entries_chain": M("ledger verified: {n} entries, chain intact", "台帳を検証しました: 記録 {n} 件、連鎖は壊れていません"),
    # --- grader regrade (grader/workflows/regrade.py) --------------------------------------------------
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
    "graded_again_changed_s": M(
        "{n} graded again, {changed} changed, in {s} s; record: {path}",
        "{n} 件を再採点し、{changed} 件が変わりました（{s} 秒）。記録: {path}"),
    # --- due dates and extensions (grader/spec/due.py) ------------------------------------------
    "date_time_write_2026": M(
        "{where}: {text} is not a date and time; write it as 2026-12-01T23:59:00+09:00",
        "{where}: {text} は日時ではありません。2026-12-01T23:59:00+09:00 のように書いてください"),
    "has_no_time_zone": M(
        "{where}: {text} has no time zone; add its offset, e.g. {example}",
        "{where}: {text} にタイムゾーンがありません。{example} のように時差を付けてください"),
    "give_either_due_days": M(
        "{where}: give either due or days for {student}",
        "{where}: {student} には due か days のどちらか一つを書いてください"),
    "listed_twice_keep_one": M(
        "{where}: {student} is listed twice; keep one line per student",
        "{where}: {student} が 2 回書かれています。学生ごとに 1 行にしてください"),
    "days_must_number_got": M(
        "{where}: days must be a number (got {got})",
        "{where}: days は数で書いてください（{got} と書かれています）"),
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
    # --- the rubric file itself (grader/spec/rubric.py load_rubric) ---------------------------------
    "rubric_file_not_found": M("file not found (looked for {path})", "ファイルがありません（{path} を探しました）"),
    "rubric_pass_path": M(
        "pass --rubric with the path of a rubric YAML file, e.g. rubrics/chapter07.yaml",
        "--rubric にルーブリックの YAML ファイルのパスを渡してください（例: rubrics/chapter07.yaml）"),
    "rubric_is_folder": M("is a folder, not a file", "ファイルではなくフォルダです"),
    "rubric_name_yaml_inside": M("name the .yaml file inside it", "その中の .yaml ファイルを指定してください"),
    "rubric_not_utf8": M("is not UTF-8 text ({why})", "UTF-8 のテキストではありません（{why}）"),
    "rubric_save_utf8": M("save it as UTF-8", "UTF-8 で保存し直してください"),
    "rubric_cannot_read": M("cannot be read ({why})", "読み込めません（{why}）"),
    "rubric_check_permissions": M("check its permissions", "読み取りの権限を確かめてください"),
    "rubric_duplicate_key": M(
        "the key {key} is given twice in one mapping (lines {first} and {line})",
        "同じ階層にキー {key} が 2 回書かれています（{first} 行目と {line} 行目）"),
    "rubric_keep_one_key": M("keep one of them", "どちらか一方だけにしてください"),
    "rubric_invalid_yaml_at": M(
        "invalid YAML at line {line}, column {column}: {what}",
        "YAML として読めません（{line} 行 {column} 列。YAML の読み手の言葉では: {what}）"),
    "rubric_check_indentation": M(
        "check the indentation there, and quote values that contain ': ' or ' #'",
        "その箇所の字下げを確かめ、': ' や ' #' を含む値は引用符で囲んでください"),
    "rubric_invalid_yaml": M("invalid YAML: {what}", "YAML として読めません（YAML の読み手の言葉では: {what}）"),
    "rubric_fix_yaml": M("fix the YAML syntax", "YAML の書き方を直してください"),
    "csv_not_utf8": M(
        "{path}: not text in UTF-8 or CP932; save it again as CSV UTF-8 (in Excel: Save As > CSV UTF-8)",
        "{path}: UTF-8 でも CP932 でもない文字コードです。CSV UTF-8 で保存し直してください"
        "（Excel では「名前を付けて保存」→「CSV UTF-8」）"),
    "days_at_most": M(
        "{where}: days must be at most {most} (got {got})",
        "{where}: days は {most} 以下にしてください（{got} と書かれています）"),
    "no_column_first_line": M(
        "{path}: no column {columns}; the first line names the columns, e.g. {example}",
        "{path}: 列 {columns} がありません。最初の行に列の名前を書きます（例: {example}）"),
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
    "task_resources_must_map": M(
        "{path}: task_resources: must map a resource's name to what each task takes (a line train: 1 under it, "
        "for example)",
        "{path}: task_resources: には、資源の名前と各タスクが使う量を書いてください（例: その下に train: 1 の行）"),
    "task_resources_positive_number": M(
        "{path}: task_resources.{name}: {amount} is not a positive number of a resource named in letters, digits "
        "and _ (e.g. train: 1)",
        "{path}: task_resources.{name}: {amount} は、英数字と _ で名付けた資源の正の量ではありません（例: train: 1）"),
    "waiting_dask_worker_started": M("waiting for a Dask worker started with{asked}", "{asked} で起動された Dask ワーカーを待っています"),
    "worker_sent_no_heartbeat": M(
        "worker {address} sent no heartbeat for {s} s; its shards go elsewhere",
        "ワーカー {address} から {s} 秒間ハートビートが届きません。その分担は別のワーカーに回します"),
    "waiting_dask_worker_join": M(
        "waiting for a Dask worker to join the scheduler",
        "Dask ワーカーがスケジューラーにつながるのを待っています"),
    # --- the batch's own lines on the terminal (grader/workflows/batch.py, grader/cli/__init__.py, grader/engines/local_pool.py) ----
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
    "resume_submission_s_already": M(
        "resume: {n} submission(s) already graded with this rubric; skipped",
        "再開: このルーブリックで採点済みの提出物 {n} 件は採点し直しません"),
    "interrupted_graded_kept_finish": M(
        "interrupted: {n} of {total} graded and kept in {outdir}; finish with: {again} --resume",
        "中断しました: {total} 件中 {n} 件を採点して {outdir} に残しました。続きは次のコマンドで: {again} --resume"),
    "interrupted_2": M("interrupted", "中断しました"),
    "report_could_written": M("its report could not be written ({why})", "レポートを書き出せませんでした（{why}）"),
    "warning": M("warning: {warning}", "警告: {warning}"),
    "warning_similarity_stage_failed": M(
        "warning: the similarity stage failed ({what}); run it again with: grader similarity {out}",
        "警告: 類似度の検出に失敗しました（{what}）。次のコマンドでやり直してください: grader similarity {out}"),
    "warning_reports_skipped": M("warning: {why}; {fmt} reports skipped", "警告: {why}。{fmt} のレポートは書きませんでした"),
    "cannot_read_error_report": M(
        "cannot read: {why} (an error report is written)",
        "読み取れません: {why}（エラーのレポートを書きました）"),
    "rlimits_only_no_namespaces": M("rlimits only, no namespaces", "rlimits のみで、名前空間による隔離はありません"),
    "grading": M("grading", "採点中"),
    "eta": M("ETA", "残り"),
    "below_pass_errors_timeouts": M(
        "below pass {below}  errors {errors}  timeouts {timeouts}",
        "合格点未満 {below}  エラー {errors}  時間切れ {timeouts}"),
    "item_analysis_correct_styles": M(
        "item analysis: {n} correct styles of the validate corpus are graded beside the class",
        "テストの分析のため、validate の正しい別解 {n} 件をクラスと一緒に採点します"),
    "worksheet_rubric_has_no": M(
        "--worksheet {file}: the rubric {rubric} has no due:, so no time is late; add due: (e.g. "
        "2026-12-01T23:59:00+09:00) to the rubric",
        "--worksheet {file}: ルーブリック {rubric} に due: がないため、遅れの判定ができません。ルーブリックに due:"
        "（例: 2026-12-01T23:59:00+09:00）を書き足してください"),
    "time_moodle_writes_e": M(
        "{where}: {text} is not a time as Moodle writes it (e.g. Tuesday, 1 December 2026, 11:05 PM); download the "
        "worksheet from Moodle in English",
        "{where}: {text} は Moodle の書く時刻の形（例: Tuesday, 1 December 2026, 11:05 PM）ではありません。"
        "英語表示の Moodle から採点ワークシートをダウンロードしてください"),
    "date_exists": M("{where}: {text} is not a date that exists", "{where}: {text} は存在しない日付です"),
    # --- command-line and reading errors raised across grader/ ------------------------------
    "arrays_dtype_cannot_cross": M(
        'arrays of dtype {dtype} cannot cross the boundary',
        'dtype が {dtype} の配列は境界を越えて送れません'),
    "array_spec_must_have": M(
        'array spec must have exactly dtype, shape and buf',
        '配列の記述には dtype、shape、buf のちょうど三つが必要です'),
    "dtype_allowed_wire": M(
        'dtype {dtype} is not allowed on the wire',
        'dtype {dtype} は送れません'),
    "array_shape_must_list": M(
        'array shape must be a list of at most MAX_DEPTH ints',
        '配列の shape は MAX_DEPTH 個までの整数のリストでなければなりません'),
    "array_dimensions_must_ints": M(
        'array dimensions must be ints from 0 to 2**63 - 1',
        '配列の各次元は 0 から 2**63 - 1 までの整数でなければなりません'),
    "array_bytes_must_buffer": M(
        'array bytes must be a buffer of the frame',
        '配列のバイト列はフレームのバッファでなければなりません'),
    "array_byte_count_does": M(
        'array byte count does not match its dtype and shape',
        '配列のバイト数が dtype と shape に合いません'),
    "array_shape_out_range": M(
        'array shape is out of range',
        '配列の shape が範囲外です'),
    "value_nested_too_deeply": M(
        'value is nested too deeply',
        '値の入れ子が深すぎます'),
    "sequence_more_than_items": M(
        'a sequence of more than {n} items cannot cross the boundary',
        '{n} 個を超える要素の列は境界を越えて送れません'),
    "only_str_keys_may": M(
        'only str keys may cross the boundary',
        '境界を越えて送れる辞書のキーは str だけです'),
    "dict_entries_must_str": M(
        'dict entries must be [str, value] pairs',
        '辞書の項目は [str, 値] の組でなければなりません'),
    "unknown_value_wire": M(
        'unknown value on the wire',
        '送られてきた値の種類が不明です'),
    "frame_bytes_exceeds_byte": M(
        'frame of {size} bytes exceeds the {limit}-byte limit',
        '{size} バイトのフレームは上限 {limit} バイトを超えています'),
    "invalid_out_order_buffer": M(
        'invalid or out-of-order buffer reference',
        'バッファの参照が不正か、順番が違います'),
    "buffer_runs_past_end": M(
        'buffer runs past the end of the frame',
        'バッファがフレームの終わりを越えています'),
    "json": M(
        '{name} is not JSON',
        '{name} は JSON ではありません'),
    "frame_too_short_header": M(
        'frame is too short for its header',
        'フレームがヘッダより短いです'),
    "frame_s_lengths_do": M(
        "frame's lengths do not add up to its size",
        'フレームの各長さの合計が大きさと合いません'),
    "buffer_unreferenced_referenced_outside": M(
        'a buffer is unreferenced, referenced outside an array, or the buffers do not fill the frame',
        '参照されていないバッファか、配列の外から参照されたバッファがあるか、バッファがフレームを埋めていません'),
    "frame_json": M(
        'frame is not JSON: {why}',
        'フレームが JSON ではありません: {why}'),
    "frame_must_hold_one": M(
        'frame must hold one JSON object and nothing else',
        'フレームには JSON のオブジェクトを一つだけ入れてください'),
    "frame_bytes_exceeds_limit": M(
        'frame of {size} bytes exceeds the limit',
        '{size} バイトのフレームは上限を超えています'),
    "refusing_run_student_code": M(
        'refusing to run student code as root: {why}',
        '学生のコードを root として実行しません: {why}'),
    "finished_reports_kept_fix": M(
        '{failure} ({n} finished reports kept in {outdir}; fix the cause, then run again: {again} --resume)',
        '{failure}（終わったレポート {n} 件は {outdir} に残してあります。原因を直してから、もう一度実行してください: {again} --resume）'),
    "no_submission_found_entries": M(
        "{source}: no submission found (entries looked at: {seen}; none holds {files}, answers.yaml, a notebook or a zip of them); pass the folder or the LMS's download zip that holds the students' uploads",
        '{source}: 提出物が見つかりません（{seen} 項目を調べましたが、{files}、answers.yaml、ノートブック、またはそれらの zip を含むものはありません）。学生の提出物が入ったフォルダか、LMS からダウンロードした zip を指定してください'),
    "needs_function_name_probes": M(
        "{name}: {where}: needs 'function' (a name) and 'probes' (a list of records with a 'call' key, as grader catalogue draft writes them)",
        "{name}: {where}: 'function'（名前）と 'probes'（grader catalogue draft が書く、'call' キーを持つ記録のリスト）が必要です"),
    "cluster_functions_left_no": M(
        'cluster {number}: its functions left no probe values to recognise it by (they raised before returning); word an entry and a recogniser in hooks.py by hand',
        'クラスタ {number}: 関数が値を返す前に例外を送出したため、見分けるためのプローブの値がありません。項目と判定関数を hooks.py に手で書いてください'),
    "canvas_gradebook_export_first": M(
        '{path}: not a Canvas gradebook export (its first columns are not Student, ID); export the gradebook from Canvas (Grades > Export > CSV) and pass that file',
        '{path}: Canvas から書き出した成績表ではありません（最初の列が Student、ID ではありません）。Canvas から成績表を書き出し（Grades > Export > CSV）、そのファイルを指定してください'),
    "cannot_build_namespace_sandbox": M(
        'cannot build the namespace sandbox: {why}. Fix that, or pass --allow-weak-sandbox to grade with rlimits only (student code could then read files and reach the network).',
        '名前空間のサンドボックスを作れません: {why}。それを直すか、--allow-weak-sandbox を指定して rlimits だけで採点してください（その場合、学生のコードがファイルを読んだりネットワークにつないだりできます）。'),
    "worker_needs_posix_pipes": M(
        'the {level} worker needs POSIX pipes and fork, which this platform does not have; use the subprocess level (chosen automatically where fork is missing)',
        '{level} の採点用プロセスには POSIX のパイプと fork が必要ですが、この環境にはありません。subprocess レベルを使ってください（fork がない環境では自動で選ばれます）'),
    "no_note_submissions_graded": M(
        '{outdir}: no note of the submissions it graded ({note}); name them: grader similarity {outdir} --source DIR_OR_ZIP',
        '{outdir}: 採点した提出物の記録がありません（{note}）。提出物を指定してください: grader similarity {outdir} --source DIR_OR_ZIP'),
    "no_such_file_folder": M(
        "{path}: no such file or folder; name your submission's folder, notebook or zip",
        '{path}: そのようなファイルやフォルダはありません。提出物のフォルダ、ノートブック、または zip を指定してください'),
    "no_such_file_folder_2": M(
        '{path}: no such file or folder; name your submission folder or notebook',
        '{path}: そのようなファイルやフォルダはありません。提出物のフォルダかノートブックを指定してください'),
    "watch_prints_terminal_cannot": M(
        '--watch prints to the terminal; it cannot be combined with --format, --out or --out-dir',
        '--watch は端末に表示します。--format、--out、--out-dir とは一緒に使えません'),
    "no_reports_run_grader": M(
        '{dir}: no reports in {reports}; run grader batch with --out {out} first',
        '{dir}: {reports} にレポートがありません。先に grader batch を --out {out} で実行してください'),
    "found_pass_out_folders": M(
        '{path}: not found; pass the --out folders of grader batch runs',
        '{path}: 見つかりません。grader batch の --out のフォルダを指定してください'),
    "second_gradebook_pass_one": M(
        '{path}: a second gradebook for {assignment}; pass one folder per assignment',
        '{path}: {assignment} の 2 つ目の成績表です。課題ごとに一つのフォルダを指定してください'),
    "readable_zip_file": M(
        '{path}: not a readable zip file ({why})',
        '{path}: zip ファイルとして読み取れません（{why}）'),
    "export_too_large_unpack": M(
        '{path}: the export is too large to unpack (over {n} entries or {gib} GiB)',
        '{path}: 書き出しが大きすぎて展開できません（{n} 項目または {gib} GiB を超えています）'),
    "folder_submissions_nor_lms": M(
        '{path}: not a folder of submissions nor an LMS export zip',
        '{path}: 提出物のフォルダでも、LMS から書き出した zip でもありません'),
    "must_inside_course_repository": M(
        '{path}: must be inside the course repository {repo}',
        '{path}: 授業のリポジトリ {repo} の中にある必要があります'),
    "must_inside_course_repository_2": M(
        '{path}: the {what} must be inside the course repository {repo}',
        '{path}: {what}は授業のリポジトリ {repo} の中にある必要があります'),
    "folder_empty_choose_new": M(
        '{path}: the folder is not empty; choose a new one or pass --force',
        '{path}: フォルダが空ではありません。新しいフォルダを選ぶか、--force を指定してください'),
    "hidden_material_overlaps_what": M(
        '{path}: hidden material overlaps what students get; separate the folders',
        '{path}: 非公開の素材が学生に配るものと重なっています。フォルダを分けてください'),
    "assignment_s_plug_overlaps": M(
        "{path}: the assignment's plug-in overlaps the hidden suite; separate the folders",
        '{path}: 課題のプラグインが非公開のテストと重なっています。フォルダを分けてください'),
    "unknown_report_format_use": M(
        'unknown report format {fmt}; use one of {formats}',
        '不明なレポート形式 {fmt} です。{formats} のどれかを使ってください'),
    "unknown_language_use_one": M(
        'unknown language {lang}; use one of {langs}',
        '不明な言語 {lang} です。{langs} のどれかを使ってください'),
    "lang_use_one": M(
        'lang={lang}: use one of {langs}',
        'lang={lang}: {langs} のどれかを使ってください'),
    "no_such_rubric_pass_2": M(
        '{path}: no such rubric; pass rubric= with the path of the rubric YAML file',
        '{path}: そのようなルーブリックはありません。rubric= にルーブリックの YAML ファイルのパスを指定してください'),
    "check_no_such_part": M(
        'check({part}): no such part; the parts are {parts}',
        'check({part}): そのような小問はありません。小問は {parts} です'),
    "no_rubric_found_no": M(
        'no rubric found: no {dir}/*.yaml in {start} or above it; run the command inside the course folder',
        'ルーブリックが見つかりません: {start} とその上のフォルダに {dir}/*.yaml がありません。授業のフォルダで実行してください'),
    "unknown_sandbox_level_grader": M(
        'unknown sandbox level {level} (GRADER_SANDBOX): use one of {levels}',
        '不明なサンドボックスのレベル {level} です（GRADER_SANDBOX）。{levels} のどれかを使ってください'),
    "cannot_build_namespace_sandbox_2": M(
        'cannot build the namespace sandbox: {why}',
        '名前空間のサンドボックスを作れません: {why}'),
    "assignment_name_lower_case": M(
        "{name}: an assignment name is lower-case letters, digits and '_', starting with a letter (e.g. chapter09)",
        "{name}: 課題の名前は英小文字、数字、'_' で書き、英字で始めてください（例: chapter09）"),
    "exists_already_pick_another": M(
        '{name} exists already ({files}); pick another name or remove those files',
        '{name} はすでにあります（{files}）。別の名前にするか、それらのファイルを消してください'),
    "holds_another_zip_instead": M(
        '{path}: holds another zip ({name}) instead of the files; zip your folder or notebook directly, not a zip of a zip',
        '{path}: ファイルではなく別の zip（{name}）が入っています。zip の zip ではなく、フォルダかノートブックを直接 zip にしてください'),
    "cannot_read_build_release": M(
        '{path}: cannot read it ({why}); build the release again or delete the file',
        '{path}: 読み取れません（{why}）。リリースを作り直すか、ファイルを消してください'),
    "cannot_read_notebook_open": M(
        '{path}: cannot read the notebook ({name}: {why}); open it in Jupyter and save it again',
        '{path}: ノートブックを読み取れません（{name}: {why}）。Jupyter で開いて保存し直してください'),
    "zip_over_limit": M(
        '{path}: the zip is {size}, over the {limit} limit; {fix}',
        '{path}: zip の大きさが {size} で、上限 {limit} を超えています。{fix}'),
    "zip_holds_entries_over": M(
        '{path}: the zip holds {n} entries, over the limit of {limit}; {fix}',
        '{path}: zip に {n} 個の項目があり、上限 {limit} を超えています。{fix}'),
    "zip_unpacks_over_limit": M(
        '{path}: the zip unpacks to {size}, over the {limit} limit; {fix}',
        '{path}: zip を展開すると {size} になり、上限 {limit} を超えています。{fix}'),
    "cannot_imported_python_module": M(
        '{path}: cannot be imported as a Python module',
        '{path}: Python のモジュールとして読み込めません'),
    "importing_assignment_s_hooks": M(
        "{path}: importing the assignment's hooks failed: {name}: {why}",
        '{path}: 課題のフックの読み込みに失敗しました: {name}: {why}'),
    "grading_workers_keep_stopping": M(
        'grading workers keep stopping; see {log}',
        '採点用プロセスが何度も停止しています。{log} を見てください'),
    "grading_worker_stopped_log": M(
        'a grading worker stopped: {why} (its log: {log})',
        '採点用プロセスが停止しました: {why}（ログ: {log}）'),
    "sandbox_did_start": M(
        'the sandbox did not start: {why}',
        'サンドボックスが起動しませんでした: {why}'),
    "no_report_produced_pytest": M(
        'no report was produced for: {what} (pytest exit {code})',
        '次のレポートが作られませんでした: {what}（pytest の終了コード {code}）'),
    "reference_has_no_py": M(
        '{path}: the reference has no {part}.py',
        '{path}: 模範解答に {part}.py がありません'),
    "subprocess_worker_did_start": M(
        'the subprocess worker did not start: {why}',
        'subprocess の採点用プロセスが起動しませんでした: {why}'),
    "subprocess_worker_could_started": M(
        'the subprocess worker could not be started: {why}',
        'subprocess の採点用プロセスを起動できませんでした: {why}'),
    "worker_did_start": M(
        'the {level} worker did not start: {why}',
        '{level} の採点用プロセスが起動しませんでした: {why}'),
    "worker_process_gone": M(
        'the worker process is gone',
        '採点用プロセスがなくなりました'),
    "returned_something_could_read": M(
        '{func}() returned something that could not be read: {why}',
        '{func}() の戻り値を読み取れませんでした: {why}'),
    "value_holds_mib_most": M(
        'the value holds {n} MiB; at most {limit} MiB can be returned',
        '値の大きさが {n} MiB です。返せるのは {limit} MiB までです'),
    "value_mib_wire_most": M(
        'the value is {n} MiB on the wire; at most {limit} MiB can be returned',
        '値は送ると {n} MiB になります。返せるのは {limit} MiB までです'),
    "mutant_starts_mistake_id": M(
        "{path}: a mutant starts with '# mistake: <id>' and '# file: <name>.py'",
        "{path}: ミュータントは '# mistake: <id>' と '# file: <name>.py' で始めてください"),
    "check_gave_no_report": M(
        'the check gave no report: {why}',
        'チェックがレポートを返しませんでした: {why}'),
    "checker_running": M(
        'the checker is not running',
        'チェック用プロセスが動いていません'),
    "checker_gave_no_answer": M(
        'the checker gave no answer in {seconds} s; it was stopped',
        'チェック用プロセスが {seconds} 秒以内に応答しなかったため、停止しました'),
    "checker_stopped": M(
        'the checker stopped: {why}',
        'チェック用プロセスが停止しました: {why}'),
    "needs_en_ja_strings": M(
        '{path}: {key}: needs en and ja strings',
        '{path}: {key}: en と ja の文字列が必要です'),
    "message_needs_en_ja": M(
        '{path}: {key}.message: needs en and ja templates',
        '{path}: {key}.message: en と ja のテンプレートが必要です'),
    "top_level_must_mistakes": M(
        "{path}: the top level must be 'mistakes:' mapping ids to entries",
        "{path}: 最上位には、id から項目への対応表として 'mistakes:' を書いてください"),
    "id_id_lower_case": M(
        "--id {id}: an id is lower-case words joined by '-', e.g. scores-clamped",
        "--id {id}: id は英小文字の単語を '-' でつないで書いてください（例: scores-clamped）"),
    "plugin_catalogue_assignment_has": M(
        '{path}: plugin.catalogue: this assignment has no catalogue to add to; name one (e.g. plugin/mistakes.yaml)',
        '{path}: plugin.catalogue: この課題には追加先のカタログがありません。カタログを指定してください（例: plugin/mistakes.yaml）'),
    "mistakes_id_taken_pass": M(
        '{path}: mistakes.{id}: the id is taken; pass another with --id',
        '{path}: mistakes.{id}: この id はすでに使われています。--id で別の id を指定してください'),
    "cannot_add_mistakes_must": M(
        "{path}: cannot add to it: 'mistakes:' must be its last top-level key",
        "{path}: 追加できません: 'mistakes:' は最上位の最後のキーでなければなりません"),
    "cannot_read_canvas_gradebook": M(
        "{path}: cannot read the Canvas gradebook export ({why}); pass the CSV file Canvas's Grades > Export wrote",
        '{path}: Canvas から書き出した成績表を読み取れません（{why}）。Canvas の Grades > Export が書き出した CSV ファイルを指定してください'),
    # grader publish and report.hidden_details
    "results_published_files_written": M("results published: {n} files written again", "結果を公開しました: {n} 個のファイルを書き直しました"),
    "batch_keeps_folder_seed": M(
        "grading with seed {seed}, as the reports already in the folder were (--seed chooses another)",
        "フォルダにあるレポートと同じシード {seed} で採点します（別のシードにするには --seed）"),
    "roster_unreadable": M(
        "{path}: not the record of the names this folder's batches gave; restore it from a backup, "
        "or delete it and run grader batch again (names are then given afresh, and adjustments "
        "follow the report names as they were given)",
        "{path}: このフォルダのバッチが付けた名前の記録として読めません。バックアップから戻すか、"
        "削除して grader batch をもう一度実行してください（名前は付け直され、調整は付け直した"
        "レポート名に従います）"),
    "report_not_in_batch": M(
        "{out}: {name} is not in the last batch: its entry is no longer in SOURCE, so its report "
        "is kept but is in no gradebook; run grader batch with the entry in SOURCE again first",
        "{out}: {name} は最後のバッチにありません。その提出物がもう SOURCE にないため、レポートは"
        "残っていますがどの成績表にも載りません。先にその提出物を SOURCE に戻して grader batch を"
        "実行してください"),
    "reports_left_out": M(
        "left out {n} report(s) of entries no longer in SOURCE (kept in reports/): {names}",
        "SOURCE にもうない提出物のレポート {n} 件は成績表に載せませんでした（reports/ に残しています）: {names}"),
    "publication_record_run_grader": M(
        "{name}: not a publication record; run grader publish {out} again",
        "{name}: 公開の記録として読めません。grader publish {out} をもう一度実行してください"),
    "due_date_record_run": M(
        "{name}: not a due-date record; run grader batch {out} --resume to write it again",
        "{name}: 期限の記録として読めません。grader batch {out} --resume を実行して書き直してください"),
    "after_due_needs_due": M(
        "after_due needs the rubric's due date (there is no due:)",
        "after_due にはルーブリックの締め切りが必要です（due: がありません）"),
    "add_due_top_level": M(
        "add due: {example} at the top level, or write hidden_details: after_publish",
        "最上位に due: {example} を書くか、hidden_details: after_publish にしてください"),
    # --- what a check says about a returned value (grader/kit/asserts.py, grader/kit/quiz.py) ---------
    "check_not_numeric": M(
        "{what} returned {value}; expected a tensor or array of numbers.",
        "{what} の戻り値は {value} でした。数値のテンソルまたは配列を返してください。"),
    "check_ragged": M(
        "{what} returned a ragged list (rows of different lengths); expected a rectangular array.",
        "{what} の戻り値は長さのそろわないリストでした。長方形の配列を返してください。"),
    "check_dtype_kind": M(
        "{what} returned an array of dtype {dtype}; expected {kind}.",
        "{what} の戻り値の dtype は {dtype} でした。{kind}の配列が必要です。"),
    "check_dtype": M(
        "{what} returned dtype {dtype}; expected {want}, the dtype of the input. Keep the input's precision "
        "(avoid .float() or float32 constants).",
        "{what} の戻り値の dtype は {dtype} でした。入力と同じ {want} が必要です。"
        "入力の精度を保ってください（.float() や float32 の定数を使わない）。"),
    "check_shape": M(
        "{what} returned shape {shape}; expected shape {want}.",
        "{what} の戻り値の形状は {shape} でしたが、期待される形状は {want} です。"),
    "check_not_finite": M(
        "{what} returned {count} non-finite value(s) (nan or inf); the first is {value} at index {index}.",
        "{what} の戻り値に有限でない値（nan または inf）が {count} 個あります。最初は位置 {index} の {value} です。"),
    "check_values_differ": M(
        "{what}: {count} of {size} values differ from the expected ones; the worst is at index {index}: "
        "expected {expected}, got {actual} (max abs error {error}; allowed there {allowed}).",
        "{what}: {size} 個中 {count} 個の値が期待値と一致しません。最も大きくずれているのは位置 {index} で、"
        "期待値 {expected} に対して {actual} でした（最大絶対誤差 {error}、そこでの許容誤差 {allowed}）。"),
    "check_masked_not_zero": M(
        "{what}: masked positions must be exactly 0, but index {index} is {value}.",
        "{what}: マスクされた位置はちょうど 0 でなければなりませんが、位置 {index} は {value} でした。"),
    "check_not_a_number": M(
        "{what} returned {value}; expected a number.",
        "{what} の戻り値は {value} でした。数値を返してください。"),
    "check_not_a_float": M(
        "{what} returned {value}; expected a Python float. Use .item() or float(...) to turn a tensor into a float.",
        "{what} の戻り値は {value} でした。Python の floatを返してください。"
        "テンソルは .item() か float(...) で float に変換してください。"),
    "check_not_finite_number": M(
        "{what} returned {value}; expected a finite number near {expected}.",
        "{what} の戻り値は {value} でした。{expected} に近い有限の数が必要です。"),
    "check_number_differs": M(
        "{what} returned {value}; expected {expected} (allowed error {allowed}).",
        "{what} の戻り値は {value} でしたが、期待値は {expected} です（許容誤差 {allowed}）。"),
    "check_not_an_int": M(
        "{what} returned {value} (a {type}); expected an int.",
        "{what} の戻り値は {value}（{type}）でした。int を返してください。"),
    "check_int_floor_division": M(
        "A dimension count is an int: use // (or int()) rather than /.",
        "次元数は int です。/ ではなく // （または int()）を使ってください。"),
    "check_int_differs": M(
        "{what} returned {value}; expected {expected}.",
        "{what} の戻り値は {value} でしたが、期待値は {expected} です。"),
    "check_not_a_dict": M(
        "{what} returned {value}; expected a dict with keys {keys}.",
        "{what} の戻り値は {value} でした。キー {keys} を持つ dict を返してください。"),
    "check_dict_keys": M(
        "{what} returned a dict with keys {got}; expected exactly {keys} (missing {missing}, unexpected {extra}).",
        "{what} の戻り値の dict のキーは {got} でした。ちょうど {keys} が必要です（不足 {missing}、余分 {extra}）。"),
    "check_not_a_list": M(
        "{what} returned {value}; expected a list of {length} items.",
        "{what} の戻り値は {value} でした。{length} 個の要素を持つ list を返してください。"),
    "check_list_length": M(
        "{what} returned a list of {count} items; expected {length}.",
        "{what} の戻り値の list の要素数は {count} でしたが、{length} 個必要です。"),
    "check_raised_another": M(
        "expected {what} to raise {want}, but it raised {raised}.",
        "{what} は {want} を送出するはずですが、{raised} が送出されました。"),
    "check_raised_nothing": M(
        "expected {what} to raise {want}, but the call returned {value}.",
        "{what} は {want} を送出するはずですが、例外は起きず {value} が返されました。"),
    "check_answers_unreadable": M(
        "{question}: {file} cannot be read, so no answer was checked: {problem}. Fix {file} and run the check again.",
        "{question}: {file} を読み込めないため、答えを確認できませんでした。{problem} {file} を直してから、"
        "もう一度チェックしてください。"),
    "quiz_no_answer_yet": M(
        '{question}: no answer yet; write it after "answer:" in answers.yaml.',
        "{question}: まだ答えがありません。answers.yaml の「answer:」の後に書いてください。"),
    "quiz_write_a_number": M(
        "{question}: {answer} is not a number; write a number such as 2.5.",
        "{question}: {answer} は数ではありません。2.5 のように数で書いてください。"),
    "quiz_not_a_choice": M(
        "{question}: {answer} is not one of the letters {letters}.",
        "{question}: {answer} は選択肢の記号 {letters} のどれでもありません。"),
    "quiz_no_answer": M("{question}: no answer was given.", "{question}: 答えが書かれていません。"),
    "quiz_not_a_number": M("{question}: the answer {answer} is not a number.", "{question}: 答え {answer} は数ではありません。"),
    "quiz_not_one_letter": M(
        "{question}: the answer {answer} is not one letter such as a, b, c or d.",
        "{question}: 答え {answer} は a, b, c, d のような記号1文字ではありません。"),
    "quiz_not_correct": M("{question}: the answer {answer} is not correct.", "{question}: 答え {answer} は正しくありません。"),
    # --- a drafted catalogue entry (grader/insight/draft_entry.py) -----------------------------------------------
    "draft_message": M(
        "{call}: DRAFT — say what is wrong and how to fix it.",
        "{call}: 下書き — 何が間違いで、どう直すかを書いてください。"),
    # --- blind grading (grader/ingest/anonymous.py) ------------------------------------------------
    "anonymous_batch_identities_csv": M(
        "{out}: an anonymous batch (identities.csv); run it again with --anonymous",
        "{out}: 匿名で採点したフォルダです（identities.csv）。--anonymous を付けて実行してください"),
    "reports_already_name_students": M(
        "{out}: its reports already name the students; pass another --out folder for an anonymous batch",
        "{out}: このフォルダのレポートには学生の名前があります。匿名で採点するには別の --out フォルダを指定してください"),
    "anonymous_batch_name_student": M(
        "{out}: an anonymous batch: name the student by the anonymous id its reports and gradebook.csv give "
        "(anon-…), not by a name or an LMS id",
        "{out}: 匿名で採点したフォルダです。学生は、名前や LMS の ID ではなく、レポートと gradebook.csv の"
        "匿名 ID（anon-…）で指定してください"),
}

#: Sentences other programs write that the grader passes on inside its own (the OS's
#: ``strerror``, PyYAML's and libyaml's parser problems): read back only, never said. They are
#: here so that :func:`translate` shows them in Japanese where they fill a slot.
FOREIGN: dict[str, M] = {
    "no_such_file_directory": M("No such file or directory", "そのようなファイルやフォルダはありません"),
    "permission_denied": M("Permission denied", "アクセスが許可されていません"),
    "found_character_cannot_start": M(
        "found character that cannot start any token",
        "ここに書けない文字があります（字下げにタブを使っていませんか。字下げは半角スペースで書いてください）"),
    "found_character_cannot_start_2": M(
        "found character {char} that cannot start any token",
        "ここに書けない文字 {char} があります（字下げにタブを使っていませんか。字下げは半角スペースで書いてください）"),
    "mapping_values_allowed_here": M(
        "mapping values are not allowed here",
        "ここには「キー: 値」を書けません（「:」の後の半角スペースや字下げを確かめてください）"),
}


#: key -> a word, a heading or a line of a page, in English and in Japanese: what the writers
#: (the reports, the terminal, the class summary and similarity pages, the gradebook page, the CI
#: summary) put around the grader's sentences. Never read back from text (a word such as "Test"
#: must not turn a student's file name into Japanese): say each by its key, with :func:`label`.
LABELS: dict[str, M] = {
    # --- the reports' words and headings (grader/report/) ------------------------------------------
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
    "gb_automatic": M("Automatic score", "自動採点の得点"),
    "gb_adjustment": M("Adjustment", "調整"),
    "gb_max": M("Out of", "満点"),
    "gb_passed": M("Passed", "合否"),
    "passed": M("passed", "合格"),
    "gb_no": M("not passed", "不合格"),
    "gb_late": M("Late penalty", "遅延による減点"),
    "gb_reasons": M("Why adjusted", "調整の理由"),
    "gb_problems": M("Problems", "問題"),
    "gb_flags": M("Flags", "注意"),
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
    "watching": M(
        "Watching {what} (Ctrl-C to stop); checked in {s:.2f} s.",
        "{what} を監視しています（Ctrl-C で終了）。チェック {s:.2f} 秒。"),
    "rechecked": M("{file} saved: checked again in {s:.2f} s.", "{file} が保存されました: {s:.2f} 秒で再チェックしました。"),
    # --- a test's status ---------------------------------------------------------------------------
    "status_failed": M("failed", "不合格"),
    "error": M("error", "エラー"),
    "usage_line": M("Usage", "使い方"),
    "status_timeout": M("timeout", "時間切れ"),
    "status_skipped": M("skipped", "スキップ"),
    # --- the class summary's plots -----------------------------------------------------------------
    "plot_score_max": M("score (max {top})", "得点（満点 {top}）"),
    "plot_submissions": M("submissions", "提出物の数"),
    "plot_score_distribution": M("Score distribution", "得点の分布"),
    "plot_passing": M("% of submissions passing", "合格した提出物の割合（%）"),
    "plot_pass_rate": M("Pass rate per test (lowest {shown} of {total})", "テストごとの合格率（全 {total} 件のうち低い方から {shown} 件）"),
    "plot_no_mistake": M("no known mistake recognised", "既知の間違いは見つかりませんでした"),
    "plot_mistake_counts": M("How often each mistake id occurred", "間違いの ID ごとの件数"),
    # --- the adjustments section (grader/report/ledger.py) ------------------------------------------------
    "adjust_total": M(
        "Automatic score {auto}; adjusted by {delta}; final score {final}.",
        "自動採点の得点 {auto}、調整 {delta}、最終得点 {final}。"),
    "adjust_points": M("{sign}{points} points", "{sign}{points} 点"),
    "adjust_set": M("score set to {set}", "得点を {set} に設定"),
    "adjust_entry": M(
        "#{n} {change} ({where}): {reason} (by {by}, {at})",
        "#{n} {change}（{where}）: {reason}（{by}、{at}）"),
    "adjust_whole": M("total", "合計"),
    "adjust_part": M("part {part}", "小問「{part}」"),
    "adjust_review": M(
        "#{n} needs review, not applied: it was made against an automatic score of {against}, which is now {now}",
        "#{n} は要確認で、適用していません: 自動採点の得点 {against} に対する調整ですが、その得点はいま {now} です"),
    # --- the class summary (grader/outputs/summary.py) -----------------------------------------------------
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
    "summary_none": M("none", "なし"),
    "summary_rings": M("Similar submissions: look at these first", "よく似た提出物：まずここを確認"),
    "summary_ring_row": M(
        "Group {g} ({n} submissions, code match up to {best:.2f}): {members}",
        "グループ {g}（{n} 件、コードの一致は最大 {best:.2f}）: {members}"),
    "summary_ring_more": M("Every pair side by side: similarity.en.html", "すべての組を並べて表示: similarity.ja.html"),
    "summary_clusters": M("Failures no known mistake explains, grouped by behaviour", "既知の間違いで説明できない不合格（振る舞いでまとめたもの）"),
    "summary_cluster_example": M("example", "例"),
    "summary_cluster_tests": M("the tests they fail", "不合格のテスト"),
    "summary_cluster_draft": M(
        "Make cluster {n} a catalogue entry: grader catalogue draft OUT --cluster {n}",
        "クラスタ {n} をカタログ項目にする: grader catalogue draft OUT --cluster {n}"),
    "summary_items_title": M("Tests: pass rate and discrimination", "テストごとの合格率と識別力"),
    "summary_items_note": M(
        "Discrimination is the correlation between passing the test and the rest of the score; flagged tests may be broken or may not tell students apart.",
        "識別力は、そのテストの合否と残りの得点との相関です。印の付いたテストは、壊れているか、学生の理解度を見分けていない可能性があります。"),
    "summary_disc": M("Discrimination", "識別力"),
    # --- the similarity page (grader/insight/similarity.py) ------------------------------------------------
    "similarity_title": M("Similar submissions", "よく似た提出物"),
    "similarity_lead": M("Look at these first", "まずここを確認"),
    "similarity_intro": M(
        "Pairs whose code matches beyond what the class writes alike (the handed-out stubs removed, common lines weighted down), or that share rare wrong answers. A match is a reason to look, not a finding: read both sides before drawing any conclusion.",
        "クラス全体でよく書かれる部分（配布した雛形は除き、多くの学生に共通する行は軽く数えます）を超えてコードが一致する組、または珍しい誤答を共有する組です。一致は確認する理由であって結論ではありません。判断する前に両方を読んでください。"),
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
    "similarity_code_col": M("code {code:.2f}, behaviour {behaviour:.2f}", "コード {code:.2f}、振る舞い {behaviour:.2f}"),
    # --- clusters of unexplained failures (grader/insight/unknown_mistakes.py) -------------------------------------
    "cluster_size": M("{n} submissions", "{n} 件の提出物"),
    "cluster_one": M("1 submission", "1 件の提出物"),
    "cluster_same": M(
        "{funcs} — an answer no known mistake explains, the same at every probe input",
        "{funcs} — 既知の間違いでは説明できない値（どの調査入力でも同じ）"),
    "cluster_probe": M("{probe} (and alike at {more} more probe input(s))", "{probe}（ほか {more} 個の調査入力でも同様）"),
    "cluster_probe1": M("{probe}", "{probe}"),
    "cluster_raised": M("they raise {raised}", "{raised} を送出します"),
    # --- flags on a test (grader/insight/item_analysis.py) ---------------------------------------------------------
    "flag_all_pass": M("every submission passes it", "全員が合格"),
    "flag_all_fail": M("every submission fails it", "全員が不合格"),
    "flag_low_discrimination": M("does not go with the rest of the score", "他の得点と連動しない"),
    "flag_fails_correct": M("a correct style fails it", "正しい別解が不合格"),
    # --- hidden tests (grader/report/redact.py) ----------------------------------------------------
    "hidden_title": M("Hidden tests ({n})", "非公開テスト（{n} 件）"),
    "hidden_note": M("The details of these tests are not shown.", "これらのテストの詳細は表示されません。"),
    # --- the CI job summary (grader/report/markdown.py) --------------------------------------------
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
    # --- the command line, the gradebooks' feedback column, regrade records ----------------------------
    "grader_error": M("grader error", "採点システムのエラー"),
    "fb_score": M("Score {score} / {max}", "得点 {score} / {max}"),
    "fb_late": M(" (late: from {before})", "（期限後: {before} から）"),
    "fb_then": M(". ", "。"),
    "fb_mistakes": M(". Mistakes: {ids}", "。間違い: {ids}"),
    "fb_see_file": M(". See the feedback file for details.", "。詳しくはフィードバックファイルを見てください。"),
    "late_note": M("late: {before} → {after} ({rule})", "提出期限後: {before} → {after}（{rule}）"),
    "late_when": M("{rule}; submitted {submitted}, due {due}, {days} day(s) late",
                   "{rule}。提出 {submitted}、期限 {due}、{days} 日遅れ"),
    "late_extension": M(", extension: {extension}", "、延長: {extension}"),
    "late_flag_set_aside": M(
        "late: the LMS flagged this submission late, but this student has an extension (due {due}) and no "
        "submission time is known, so no late penalty was taken (give --submitted or --worksheet to measure it)",
        "提出期限後: LMS はこの提出を期限後としていますが、この学生には延長（期限 {due}）があり、提出時刻が"
        "わからないため減点していません（--submitted か --worksheet を渡すと測れます）"),
    "late_per_day": M("-{percent}% of the maximum per day or part of a day late",
                      "1 日（1 日未満も 1 日）ごとに満点の {percent}% を減点"),
    "late_once": M("-{percent}% of the maximum", "満点の {percent}% を減点"),
    "late_grace": M("{minutes} minutes' grace", "猶予 {minutes} 分"),
    "late_cap": M("at most {percent}% of the maximum", "上限は満点の {percent}%"),
    "late_none": M("no penalty", "減点なし"),
    "list_sep": M(", ", "、"),
    "regrade_title": M("Regrade {stamp}", "再採点 {stamp}"),
    "regrade_tests": M("Tests: {tests}", "テスト: {tests}"),
    "regrade_count": M("{n} submissions graded again; {changed} changed", "{n} 件を再採点し、{changed} 件が変わりました"),
    "regrade_from": M("from", "前"),
    "regrade_to": M("to", "後"),
    "regrade_not_again": M("Not graded again:", "再採点していないもの:"),
    # --- what kind of numbers a check wants (grader/kit/asserts.py) ----------------------------------------
    "kind_f": M("floating-point numbers", "浮動小数点数"),
    "kind_i": M("integers", "整数"),
    "kind_b": M("booleans", "真偽値"),
    "kind_any": M("numbers", "数値"),
    # --- a drafted catalogue entry (grader/insight/draft_entry.py) -------------------------------------------------
    "draft_title": M("DRAFT: what {func} does in cluster {number}", "下書き: クラスタ {number} の {func} の間違い"),
}


def both(key: str, langs: tuple[str, ...] = ("en", "ja"), /, **slots: object) -> str:
    """The label ``key`` in each of ``langs``, joined by " / " (for a page both kinds of reader see)."""
    return " / ".join(dict.fromkeys(label(key, lang, **slots) for lang in langs))


def label(key: str, lang: str, /, **slots: object) -> str:
    """The label ``key`` in ``lang`` (English for a language with no words of its own), with
    ``slots`` filled in when given."""
    words = LABELS[key]
    text = words.ja if lang == "ja" else words.en
    return text.format(**slots) if slots else text


def by_lang(names: dict[str, str]) -> dict[str, dict[str, str]]:
    """``{lang: {name: label}}`` for a writer that picks its words by language first and calls
    them by its own ``names`` (name -> key of :data:`LABELS`)."""
    return {lang: {name: label(key, lang) for name, key in names.items()} for lang in ("en", "ja")}


def pair(key: str) -> dict[str, str]:
    """The label ``key`` as ``{"en": …, "ja": …}``."""
    return {"en": LABELS[key].en, "ja": LABELS[key].ja}


def by_name(names: dict[str, str]) -> dict[str, dict[str, str]]:
    """``{name: {"en": …, "ja": …}}`` for a writer that picks its words by name first."""
    return {name: {"en": LABELS[key].en, "ja": LABELS[key].ja} for name, key in names.items()}


_SLOT = re.compile(r"\\\{(\w+)\\\}")


class Said(str):
    """The English of one keyed sentence (what :func:`said` returns), remembering its key and its
    slots so that :func:`translate` renders it from the key. Anything that copies it as plain text
    (formatting it into other text, JSON, a process boundary) keeps the English only."""

    key: str
    slots: dict[str, object]

    def __new__(cls, key: str, slots: dict[str, object]) -> Said:
        self = super().__new__(cls, MESSAGES[key].en.format(**slots))
        self.key, self.slots = key, slots
        return self

    def __reduce__(self) -> tuple[type[Said], tuple[str, dict[str, object]]]:
        return Said, (self.key, self.slots)


def _represent_as_text() -> None:
    """Let PyYAML's safe dumpers write a :class:`Said` as the text it is (they take only exact
    ``str`` otherwise): a note said by key may go into any YAML the grader writes."""
    import yaml

    for dumper in {yaml.SafeDumper, getattr(yaml, "CSafeDumper", yaml.SafeDumper)}:
        dumper.add_representer(Said, lambda dumper, text: dumper.represent_str(str(text)))


_represent_as_text()


class Both(TypedDict):
    """A sentence in both languages, as the ``en`` and ``ja`` of a check's failure take it."""

    en: str
    ja: str


def in_both(key: str, /, **slots: object) -> Both:
    """The sentence ``key`` in English and in Japanese at once (``**in_both(key, ...)`` fills the
    ``en`` and ``ja`` of :func:`grader.kit.asserts.require` and the quiz checks). The slots are put
    in as given in both (values and names from the check, never sentences to translate), but a
    slot that is itself a sentence (:func:`said`) is said in each language."""
    words = MESSAGES[key]
    ja = {k: translate(v, "ja") if isinstance(v, Said) else v for k, v in slots.items()}
    return Both(en=words.en.format(**slots), ja=words.ja.format(**ja))


def said(key: str, /, **slots: object) -> str:
    """The sentence ``key`` in English with ``slots`` filled in; a slot may be another sentence.
    The text is a :class:`Said`: it remembers the key and the slots.

    Raises:
        KeyError: ``key`` is not a key of :data:`MESSAGES`.
    """
    return Said(key, slots)


def say(key: str, lang: str, /, **slots: object) -> str:
    """The sentence ``key`` in ``lang`` with ``slots`` filled in: its Japanese for ``ja``, else its
    English. A slot that is a sentence (keyed, an error, or English the table knows) is shown in
    ``lang`` too; a number is put in as it is."""
    if lang != "ja":
        return MESSAGES[key].en.format(**slots)
    return MESSAGES[key].ja.format(**{name: _slot(v, lang) for name, v in slots.items()})


def _slot(value: object, lang: str) -> object:
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, BaseException):
        return error_text(value, lang)
    return translate(value if isinstance(value, str) else str(value), lang)


def table() -> dict[str, str]:
    """Every English sentence of :data:`MESSAGES` and :data:`FOREIGN` -> its Japanese."""
    return {m.en: m.ja for m in (*MESSAGES.values(), *FOREIGN.values())}


#: A slot's text where it may end in more than one place: its brackets close inside it (nested
#: up to four deep), as a sentence's or a value's do.
_NESTED = r"[^()]"
for _ in range(3):
    _NESTED = rf"[^()]|\((?:{_NESTED})*\)"
_BALANCED = rf"(?:[^()]|\((?:{_NESTED})*\))+?"


@lru_cache(maxsize=1)
def _templates() -> list[tuple[str, tuple[str, ...], bool, bool, str]]:
    """Each English sentence with what a text must hold to be it, longest first: (English, its
    fixed words in order, whether it starts and whether it ends with fixed words, Japanese)."""
    sentences = table()
    out = []
    # Longer sentences first: "skipped {name}: {problem}" must not swallow a more exact one.
    for en in sorted(sentences, key=lambda t: (-len(_SLOT.sub("", re.escape(t))), t)):
        pieces = [piece for piece in re.split(r"\{\w+\}", en)]
        out.append((en, tuple(p for p in pieces if p), bool(pieces[0]), bool(pieces[-1]), sentences[en]))
    return out


@lru_cache(maxsize=None)
def _pattern(en: str, balanced: bool) -> re.Pattern[str]:
    """The English sentence ``en`` as a pattern that reads its slots back; ``balanced``: each slot's
    brackets close inside it (:data:`_BALANCED`), else a slot is any text. Compiled when first
    needed (all of them at once take about 0.3 s)."""
    seen: set[str] = set()

    def slot(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in seen:
            return f"(?P={name})"
        seen.add(name)
        return f"(?P<{name}>{_BALANCED if balanced else '.+?'})"

    return re.compile(_SLOT.sub(slot, re.escape(en)), re.S)


def _could_be(text: str, fixed: tuple[str, ...], starts: bool, ends: bool) -> bool:
    """Whether ``text`` holds a sentence's fixed words in order (a cheap test before its pattern)."""
    if starts and not text.startswith(fixed[0]) or ends and not text.endswith(fixed[-1]):
        return False
    at = 0
    for words in fixed:
        at = text.find(words, at)
        if at < 0:
            return False
        at += len(words)
    return True


def translate(text: str, lang: str) -> str:
    """``text`` in ``lang``.

    Text :func:`said` made is rendered from its key, each slot translated the same way. Other
    text is read back to its key by the table: where a slot could end in more than one place,
    the first place where every slot's brackets close inside it wins, so ``{failure} ({n}
    finished reports kept in …)`` takes a whole refusal with its own brackets as ``{failure}``.
    Text that is no sentence of the table is returned as it is.

    Only ``ja`` translates; any other language gets ``text`` back unchanged.
    """
    if lang != "ja" or not text:
        return text
    if isinstance(text, Said):
        return say(text.key, lang, **text.slots)
    return _japanese(text)


def one_language(cell: str, lang: str) -> str:
    """Reasons joined by `` | `` (a gradebook's errors cell), each ``ja / en`` where the course has
    both languages, in ``lang`` alone: of a reason in both, the one in ``lang``; any other reason
    translated."""
    parts = []
    for part in cell.split(" | "):
        ja, slash, en = part.partition(" / ")
        if slash and " / " not in en and translate(en, "ja") == ja:
            parts.append(ja if lang == "ja" else en)
        else:
            parts.append(translate(part, lang))
    return " | ".join(parts)


def error_text(exc: BaseException, lang: str) -> str:
    """What the error ``exc`` says, in ``lang``.

    A rubric error is where, what is wrong and the fix (``file: key: problem; fix``): the
    problem and the fix are each translated on their own, as a slot at the end of the problem
    would take the fix in with it. Any other error is :func:`translate` of its message (its
    one argument, when that is a keyed sentence).
    """
    from grader.errors import RubricError

    if lang != "ja":
        return str(exc)
    if not isinstance(exc, RubricError):
        first = exc.args[0] if len(exc.args) == 1 else None
        return translate(first if isinstance(first, Said) and str(first) == str(exc) else str(exc), lang)
    problem = translate(exc.problem, lang)
    if problem == exc.problem:
        return translate(str(exc), lang)
    where = f"{exc.file}: {exc.yaml_path}: " if exc.yaml_path else f"{exc.file}: "
    fix = translate(exc.fix, lang)
    return where + problem + (("" if problem.endswith("。") else "。") + fix if fix else "")


@lru_cache(maxsize=4096)
def _japanese(text: str) -> str:
    for balanced in (True, False):
        for en, fixed, starts, ends, ja in _templates():
            if fixed and not _could_be(text, fixed, starts, ends):
                continue
            m = _pattern(en, balanced).fullmatch(text)
            if m:
                return ja.format(**{k: _japanese(v) for k, v in m.groupdict().items()})
    return text
