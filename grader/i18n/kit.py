"""What grader/kit/ says, in English and in Japanese.

Its sentences: what the checks and the quiz say of a returned value; loading a hooks file.

Every key here is said by code of grader/kit/ (the comment above each group names the modules of
grader/kit/ that say it). A sentence that code of two areas says is kept once, in the table of the
lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table to
this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- a value a check cannot send or show (asserts.py) ---------------------------------------------
    "unsendable_value": M("a {type} that cannot be returned ({why})", "返せない {type}（{why}）"),
    "opaque_value": M("a {type} object", "{type} のオブジェクト"),
    # --- checks that pass with a remark (asserts.py) --------------------------------------------------
    "agrees_float64_result_only": M(
        "{what} agrees with the float64 result only to a relative {error}: a constant such as 1/√d_k was "
        "rounded to float32 (not counted as a mistake; a constant made in the input's dtype keeps float64 "
        "precision)",
        "{what} は float64 の結果と相対誤差 {error} までしか一致しません。1/√d_k のような定数が float32 に"
        "丸められています（間違いとしては数えません。定数を入力と同じ dtype で作れば float64 の精度が保てます）"),
    # --- loading an assignment's hooks file (hooks.py) ------------------------------------------------
    "cannot_imported_python_module": M(
        '{path}: cannot be imported as a Python module',
        '{path}: Python のモジュールとして読み込めません'),
    "importing_assignment_s_hooks": M(
        "{path}: importing the assignment's hooks failed: {name}: {why}",
        '{path}: 課題のフックの読み込みに失敗しました: {name}: {why}'),
    # --- what a check says about a returned value (asserts.py, quiz.py) -------------------------------
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
    "check_float32_precision": M(
        "{what}: {count} of {size} values differ from the float64 result by up to a relative {error}, "
        "float32's rounding (the values came back as {dtype}): the input is float64, so the result must "
        "keep float64 precision (allowed here: a relative {allowed}). Compute in the input's dtype: no "
        ".float(), no float32 tensors or numpy float32 in between.",
        "{what}: {size} 個中 {count} 個の値が float64 の結果と相対誤差 {error} までずれています。これは "
        "float32 の丸め誤差です（戻り値の dtype は {dtype}）。入力が float64 なので、結果も float64 の精度が"
        "必要です（ここでの許容は相対 {allowed}）。入力と同じ dtype で計算してください（.float() や、途中で "
        "float32 のテンソルや numpy の float32 を使わない）。"),
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
}

#: key -> a word, a heading or a line of a page, in English and in Japanese.
LABELS: dict[str, M] = {
    # --- what kind of numbers a check wants (asserts.py) ----------------------------------------------
    "kind_f": M("floating-point numbers", "浮動小数点数"),
    "kind_i": M("integers", "整数"),
    "kind_b": M("booleans", "真偽値"),
    "kind_any": M("numbers", "数値"),
}
