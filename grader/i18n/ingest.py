"""What grader/ingest/ says, in English and in Japanese.

Its sentences: reading a submission, finding submissions and the rubric, blind grading.

Every key here is said by code of grader/ingest/ (the comment above each group names the modules of
grader/ingest/ that say it). A sentence that code of two areas says is kept once, in the table of
the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table
to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- plain reasons a gradebook row holds no grade (discovery.py) ----------------------------------
    "empty": M("the upload is empty: no files in it", "提出物が空です（ファイルがありません）"),
    "unreadable": M("the upload could not be read: {why}", "提出物を読み取れませんでした: {why}"),
    "no_work": M("no {files}, answers.yaml, notebook or zip in it",
                 "{files}・answers.yaml・ノートブック・zip のどれも含まれていません"),
    "missing": M("missing: {files}", "未提出のファイル: {files}"),
    "duplicate_id": M(
        "more than one entry claims student id {id} ({entries}); check by hand which is theirs",
        "学生 ID {id} を名乗る項目が複数あります（{entries}）。どれが本人のものか確認してください"),
    "ambiguous_id": M(
        "the LMS name can be read as student {id} or {others}; check by hand whose it is",
        "LMS の名前は学生 {id} とも {others} とも読めます。誰の提出か確認してください"),
    "not_a_submission": M("not a folder, notebook or zip", "フォルダ・ノートブック・zip のいずれでもありません"),
    "symlink": M("a symbolic link; not followed", "シンボリックリンクなので辿りません"),
    "online_text": M("online text, not files", "オンラインテキストの提出で、ファイルではありません"),
    "system_file": M("a file or folder an OS or a tool leaves (such as .DS_Store or __MACOSX), not a submission: "
                     "skipped", "OS やツールが残すファイル・フォルダ（.DS_Store や __MACOSX など）で、提出物ではないので採点しません"),
    "doubtful_name": M(
        "the name {entry} in the zip has no UTF-8 mark and reads cleanly in no known encoding (read as "
        "{encoding}); check the student's name by hand",
        "zip の中の名前 {entry} には UTF-8 の印がなく、どの既知の文字コードでも正しく読めません（{encoding} "
        "として読みました）。学生の名前を確認してください"),
    # --- reading a submission (submission/, discovery.py) ---------------------------------------------
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
    "notebook_checked_first_cells": M(
        "{filename} has {n} cells: its format was checked in the first {most} only; every cell was read",
        "{filename} には {n} 個のセルがあります。形式は最初の {most} 個だけ確かめました（セルはすべて読み込みました）"),
    "cell_second_answers_cell": M(
        "{filename}: cell {n} is a second answers cell; used the first",
        "{filename}: セル {n} は 2 つ目の答えのセルです。最初のセルを使いました"),
    "ipython_magics_shell_commands": M(
        "{filename}: IPython magics and shell commands are not run when grading: {what}",
        "{filename}: IPython のマジックコマンドとシェルコマンドは採点では実行しません: {what}"),
    "and_more": M("{what}; and {n} more", "{what}、ほか {n} 件"),
    "ignored_zip": M("ignored {what} in the zip", "zip の中の {what} は使いませんでした"),
    # --- finding and unpacking submissions in a batch (discovery.py, lms.py, submission/) -------------
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
    # --- finding the rubric, and a path given to grade (find_rubric.py, submission/load.py) -----------
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
    # --- an upload or an export that is refused (discovery.py, find_rubric.py, submission/) -----------
    "readable_zip_file": M(
        '{path}: not a readable zip file ({why})',
        '{path}: zip ファイルとして読み取れません（{why}）'),
    "export_too_large_unpack": M(
        '{path}: the export is too large to unpack (over {n} entries or {gib} GiB)',
        '{path}: 書き出しが大きすぎて展開できません（{n} 項目または {gib} GiB を超えています）'),
    "folder_submissions_nor_lms": M(
        '{path}: not a folder of submissions nor an LMS export zip',
        '{path}: 提出物のフォルダでも、LMS から書き出した zip でもありません'),
    "no_rubric_found_no": M(
        'no rubric found: no {dir}/*.yaml in {start} or above it; run the command inside the course folder',
        'ルーブリックが見つかりません: {start} とその上のフォルダに {dir}/*.yaml がありません。授業のフォルダで実行してください'),
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
    # --- blind grading (anonymous.py) -----------------------------------------------------------------
    "anonymous_batch_identities_csv": M(
        "{out}: an anonymous batch (identities.csv); run it again with --anonymous",
        "{out}: 匿名で採点したフォルダです（identities.csv）。--anonymous を付けて実行してください"),
    "reports_already_name_students": M(
        "{out}: its reports already name the students; pass another --out folder for an anonymous batch",
        "{out}: このフォルダのレポートには学生の名前があります。匿名で採点するには別の --out フォルダを指定してください"),
}
