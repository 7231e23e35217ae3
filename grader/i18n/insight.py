"""What grader/insight/ says, in English and in Japanese.

Its sentences: similarity, clusters of unknown mistakes, flags on a test, drafted entries.

Three words of the class summary's clusters section are said by grader/insight/unknown_mistakes.py
and by grader/outputs/summary.py: they are here, in the lower area's table.

Every key here is said by code of grader/insight/ (the comment above each group names the modules of
grader/insight/ that say it). A sentence that code of two areas says is kept once, in the table of
the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table
to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- comparing against an earlier batch (similarity.py) -------------------------------------------
    "similarity_against_names": M(
        "{out} is a blind batch, and --against {old} names its students: grade {old} with --anonymous too, "
        "or compare {out} without --against",
        "{out} は匿名の採点ですが、--against の {old} は学生を名前で示しています。{old} も --anonymous で採点するか、"
        "--against なしで {out} を比べてください"),
    # --- nothing to compare, cluster or draft (draft_entry.py, similarity.py, unknown_mistakes.py) ----
    "cluster_functions_left_no": M(
        'cluster {number}: its functions left no probe values to recognise it by (they raised before returning); word an entry and a recogniser in hooks.py by hand',
        'クラスタ {number}: 関数が値を返す前に例外を送出したため、見分けるためのプローブの値がありません。項目と判定関数を hooks.py に手で書いてください'),
    "no_note_submissions_graded": M(
        '{outdir}: no note of the submissions it graded ({note}); name them: grader similarity {outdir} --source DIR_OR_ZIP',
        '{outdir}: 採点した提出物の記録がありません（{note}）。提出物を指定してください: grader similarity {outdir} --source DIR_OR_ZIP'),
    "no_reports_run_grader": M(
        '{dir}: no reports in {reports}; run grader batch with --out {out} first',
        '{dir}: {reports} にレポートがありません。先に grader batch を --out {out} で実行してください'),
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
    # --- a pair named on the command line (similarity.py) ---------------------------------------------
    "similarity_no_such_submission": M(
        "--pair {name}: no submission of the batch by that name, id or student name; use the gradebook's "
        "submission column",
        "--pair {name}: その名前・ID・学生名の提出物はこの採点結果にありません。成績表の submission 列の名前を"
        "指定してください"),
    "similarity_ambiguous_submission": M(
        "--pair {name}: more than one submission answers to it ({found}); name one by the gradebook's submission "
        "column",
        "--pair {name}: 該当する提出物が複数あります（{found}）。成績表の submission 列の名前で 1 つを指定してください"),
    # --- what the similarity stage capped (similarity.py) ---------------------------------------------
    "similarity_code_capped": M(
        "{who}: only the first {most} KB of its code were compared (it has {size} KB); the rest was left out",
        "{who}: コードは最初の {most} KB だけを比べ、残りは比べていません（全体は {size} KB）"),
    "similarity_regions_capped": M(
        "{a} and {b}: the page shows {shown} of their {n} matching regions",
        "{a} と {b}: 一致する {n} か所のうち、ページには {shown} か所だけを載せています"),
    # --- a drafted catalogue entry (draft_entry.py) ---------------------------------------------------
    "draft_message": M(
        "{call}: DRAFT — say what is wrong and how to fix it.",
        "{call}: 下書き — 何が間違いで、どう直すかを書いてください。"),
}

#: key -> a word, a heading or a line of a page, in English and in Japanese.
LABELS: dict[str, M] = {
    # --- the class summary's words for the clusters (unknown_mistakes.py) -----------------------------
    "summary_none": M("none", "なし"),
    "summary_cluster_example": M("example", "例"),
    "summary_cluster_tests": M("the tests they fail", "不合格のテスト"),
    # --- clusters of unexplained failures (unknown_mistakes.py) ---------------------------------------
    "cluster_size": M("{n} submissions", "{n} 件の提出物"),
    "cluster_one": M("1 submission", "1 件の提出物"),
    "cluster_same": M(
        "{funcs} — an answer no known mistake explains, the same at every probe input",
        "{funcs} — 既知の間違いでは説明できない値（どの調査入力でも同じ）"),
    "cluster_probe": M("{probe} (and alike at {more} more probe input(s))", "{probe}（ほか {more} 個の調査入力でも同様）"),
    "cluster_probe1": M("{probe}", "{probe}"),
    "cluster_raised": M("they raise {raised}", "{raised} を送出します"),
    # --- flags on a test (item_analysis.py) -----------------------------------------------------------
    "flag_all_pass": M("every submission passes it", "全員が合格"),
    "flag_all_fail": M("every submission fails it", "全員が不合格"),
    "flag_low_discrimination": M("does not go with the rest of the score", "他の得点と連動しない"),
    "flag_fails_correct": M("a correct style fails it", "正しい別解が不合格"),
    "flag_too_few": M("too few submissions to judge ({n}; at least {least} needed)",
                      "判断するには提出物が少なすぎます（{n} 件。{least} 件以上が必要）"),
    # --- a drafted catalogue entry (draft_entry.py) ---------------------------------------------------
    "draft_title": M("DRAFT: what {func} does in cluster {number}", "下書き: クラスタ {number} の {func} の間違い"),
    # --- copying as evidence with per-student variants (variant_copies.py) ------------------------------
    "variant_copy_answers": M(
        "answers fit the variant of {source} ({sv}), not {copier}'s own ({cv}): {shown}",
        "答えは {copier} 自身の変種（{cv}）ではなく {source} の変種（{sv}）に合っています: {shown}"),
    "variant_copy_value": M("{question} = {given} ({source}'s: {theirs}, own: {own})",
                            "{question} = {given}（{source} の値: {theirs}、本人の値: {own}）"),
    "variant_copy_experiment": M(
        "experiment results fit the variant of {source} ({sv}), not {copier}'s own ({cv}): the variance table "
        "measures d_k = {dims} ({source}'s dimensions; own: {own}), variance = {measured}",
        "実験結果は {copier} 自身の変種（{cv}）ではなく {source} の変種（{sv}）に合っています: 分散の表は "
        "d_k = {dims}（{source} の次元。本人の次元: {own}）を測っており、分散 = {measured}"),
    "variant_copy_same_table": M("; the very same table as {source}'s", "。{source} の表とまったく同じです"),
}
