"""What grader/spec/ says, in English and in Japanese.

Its sentences: the rubric, due dates and extensions, the catalogue, the late policy.

Every key here is said by code of grader/spec/ (the comment above each group names the modules of
grader/spec/ that say it). A sentence that code of two areas says is kept once, in the table of the
lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table to
this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- manual items (rubric/load.py: manual) ---------------------------------------------------------
    "rubric_manual_list": M("must be a list of items", "項目のリストで書いてください"),
    "rubric_manual_list_fix": M("write the items as a list: {example}", "項目をリストで書いてください: {example}"),
    "rubric_manual_twice": M("the item {id} is listed twice", "項目 {id} が 2 回書かれています"),
    "rubric_manual_rename": M("give each item an id of its own", "項目ごとに別の id を付けてください"),
    "rubric_manual_part": M("names no part of this rubric ({part}; its parts: {parts})",
                            "このルーブリックの課題ではありません（{part}。課題: {parts}）"),
    "rubric_manual_part_fix": M("write one of the parts' ids, or leave part out for the total",
                                "課題の id のどれかを書くか、合計に対する項目なら part を省いてください"),
    "rubric_manual_nine": M("holds {n} items; the review keys 1 to 9 reach nine",
                            "{n} 個の項目があります。レビューのキー 1〜9 で扱えるのは 9 個までです"),
    "rubric_manual_nine_fix": M("keep nine items at most", "項目は 9 個までにしてください"),
    # --- the rubric's parts (rubric/load.py) ----------------------------------------------------------
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
    # --- reading a file named on the command line (due.py) --------------------------------------------
    "cannot_read_check_path": M(
        "{path}: cannot read it ({why}); check that the path is readable",
        "{path}: 読み込めません（{why}）。読み取れるパスか確かめてください"),
    # --- due dates and extensions (due.py) ------------------------------------------------------------
    "date_time_write_2026": M(
        "{where}: {text} is not a date and time; write it as 2026-12-01T23:59:00+09:00",
        "{where}: {text} は日時ではありません。2026-12-01T23:59:00+09:00 のように書いてください"),
    "date_out_of_years": M(
        "{where}: {text} is outside the years {first} to {last}; write the date meant (e.g. 2026-12-08T23:59:00+09:00)",
        "{where}: {text} は {first} 年から {last} 年の範囲の外です。意図した日時を書いてください（例: 2026-12-08T23:59:00+09:00）"),
    "csv_value_too_long": M(
        "{path}: line {line}: a value longer than {most} characters, more than such a file ever holds (perhaps a "
        "quote opened on that line is never closed); fix the line or export the file again",
        "{path}: {line} 行目: {most} 文字を超える値があり、この種のファイルとしては長すぎます（その行で開いた引用符が"
        "閉じていないのかもしれません）。行を直すか、ファイルを書き出し直してください"),
    "csv_record_unreadable": M(
        "{path}: line {line}: cannot read it as CSV ({why}); fix the line or export the file again",
        "{path}: {line} 行目: CSV として読み取れません（{why}）。行を直すか、ファイルを書き出し直してください"),
    "csv_cell_too_long": M(
        "{path}: line {line}: the {column} is {n} characters long, at most {most}; shorten it",
        "{path}: {line} 行目: {column} が {n} 文字あります。{most} 文字以内にしてください"),
    "csv_file_too_large": M(
        "{path}: {size} MB, larger than such a file ever is (at most {most} MB); check that it is the right file",
        "{path}: {size} MB あり、この種のファイルとしては大きすぎます（上限 {most} MB）。正しいファイルか確かめてください"),
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
    # --- the rubric file itself, and the extensions file (rubric/load.py, due.py) ---------------------
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
    # --- submission times as the LMS writes them (due.py) ---------------------------------------------
    "time_moodle_writes_e": M(
        "{where}: {text} is not a time as Moodle writes it (e.g. Tuesday, 1 December 2026, 11:05 PM, or in Japanese "
        "2026年 12月 1日(火曜日) 23:05); download the worksheet again from Moodle shown in English or Japanese, and "
        "pass it as downloaded (a spreadsheet that saves it again may rewrite the times)",
        "{where}: {text} は Moodle の書く時刻の形（例: 2026年 12月 1日(火曜日) 23:05、英語表示では Tuesday, 1 December "
        "2026, 11:05 PM）ではありません。日本語か英語表示の Moodle から採点ワークシートをダウンロードし直し、そのまま渡して"
        "ください（表計算ソフトで保存し直すと時刻の形が変わることがあります）"),
    "date_exists": M("{where}: {text} is not a date that exists", "{where}: {text} は存在しない日付です"),
    # --- the catalogue of mistakes, the rubric's languages and due date (catalogue.py, rubric/) -------
    "needs_function_name_probes": M(
        "{name}: {where}: needs 'function' (a name) and 'probes' (a list of records with a 'call' key, as grader catalogue draft writes them)",
        "{name}: {where}: 'function'（名前）と 'probes'（grader catalogue draft が書く、'call' キーを持つ記録のリスト）が必要です"),
    "unknown_language_use_one": M(
        'unknown language {lang}; use one of {langs}',
        '不明な言語 {lang} です。{langs} のどれかを使ってください'),
    "needs_en_ja_strings": M(
        '{path}: {key}: needs en and ja strings',
        '{path}: {key}: en と ja の文字列が必要です'),
    "message_needs_en_ja": M(
        '{path}: {key}.message: needs en and ja templates',
        '{path}: {key}.message: en と ja のテンプレートが必要です'),
    "top_level_must_mistakes": M(
        "{path}: the top level must be 'mistakes:' mapping ids to entries",
        "{path}: 最上位には、id から項目への対応表として 'mistakes:' を書いてください"),
    "after_due_needs_due": M(
        "after_due needs the rubric's due date (there is no due:)",
        "after_due にはルーブリックの締め切りが必要です（due: がありません）"),
    "add_due_top_level": M(
        "add due: {example} at the top level, or write hidden_details: after_publish",
        "最上位に due: {example} を書くか、hidden_details: after_publish にしてください"),
}

#: key -> a word, a heading or a line of a page, in English and in Japanese.
LABELS: dict[str, M] = {
    # --- the late policy in words (rubric/model.py) ---------------------------------------------------
    "late_per_day": M("-{percent}% of the maximum per day or part of a day late",
                      "1 日（1 日未満も 1 日）ごとに満点の {percent}% を減点"),
    "late_once": M("-{percent}% of the maximum", "満点の {percent}% を減点"),
    "late_grace": M("{minutes} minutes' grace", "猶予 {minutes} 分"),
    "late_cap": M("at most {percent}% of the maximum", "上限は満点の {percent}%"),
    "late_none": M("no penalty", "減点なし"),
    "list_sep": M(", ", "、"),
    # --- the late policy applied to a report: its note (due.py) --------------------------------------
    "late_note": M("late: {before} → {after} ({rule})", "提出期限後: {before} → {after}（{rule}）"),
    "late_when": M("{rule}; submitted {submitted}, due {due}, {days} day(s) late",
                   "{rule}。提出 {submitted}、期限 {due}、{days} 日遅れ"),
    "late_extension": M(", extension: {extension}", "、延長: {extension}"),
    "late_flag_set_aside": M(
        "late: the LMS flagged this submission late, but this student has an extension (due {due}) and no "
        "submission time is known, so no late penalty was taken (give --submitted or --worksheet to measure it)",
        "提出期限後: LMS はこの提出を期限後としていますが、この学生には延長（期限 {due}）があり、提出時刻が"
        "わからないため減点していません（--submitted か --worksheet を渡すと測れます）"),
}
