"""What grader/notebook.py says, in English and in Japanese.

Its sentences: the notebook's check cell.

Every key here is said by code of grader/notebook.py (the comment above each group names the module
that says it). A sentence that code of two areas says is kept once, in the table of the lower area
(the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- the notebook's check cell (grader/notebook.py) -----------------------------------------------
    "run_cells_define_these": M(
        "run the cells that define these functions first, then check again: {functions}",
        "先に、次の関数を定義しているセルを実行してから、もう一度チェックしてください: {functions}"),
    "lang_use_one": M(
        'lang={lang}: use one of {langs}',
        'lang={lang}: {langs} のどれかを使ってください'),
    "no_such_rubric_pass_2": M(
        '{path}: no such rubric; pass rubric= with the path of the rubric YAML file',
        '{path}: そのようなルーブリックはありません。rubric= にルーブリックの YAML ファイルのパスを指定してください'),
    "check_no_such_part": M(
        'check({part}): no such part; the parts are {parts}',
        'check({part}): そのような小問はありません。小問は {parts} です'),
}
