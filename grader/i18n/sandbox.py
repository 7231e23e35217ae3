"""What grader/sandbox/ says, in English and in Japanese.

Its sentences: running a submission in the worker, the sandbox's level, the wire.

grader/sandbox/zygote.py and grader/sandbox/wire.py run inside the sandbox, where the ``grader``
package cannot be imported: they spell their sentences out in English, and the entries here read
them back (:func:`grader.i18n.messages.translate`), so they are shown in Japanese all the same.

Every key here is said by code of grader/sandbox/ (the comment above each group names the modules of
grader/sandbox/ that say it). A sentence that code of two areas says is kept once, in the table of
the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table
to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- running a submission in the worker (worker.py) -----------------------------------------------
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
    "no_answer_within_s": M("no answer within {seconds} s", "{seconds} 秒以内に応答がありませんでした"),
    "submission_used_up_s": M("the submission used up its {seconds} s", "提出物全体の制限時間 {seconds} 秒を使い切りました"),
    "worker_process_died": M("the worker process died", "採点用プロセスが終了しました"),
    "worker_could_started_again": M("the worker could not be started again", "採点用プロセスを再起動できませんでした"),
    "worker_s_channel_closed": M("the worker's channel is closed", "採点用プロセスとの通信が閉じられました"),
    "worker_sent_invalid_frame": M("the worker sent an invalid frame: {what}", "採点用プロセスから不正なデータが届きました: {what}"),
    # --- the sandbox's level, and what it refuses (level.py, uids.py, worker.py, zygote.py) -----------
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
    "rlimits_only_no_namespaces": M("rlimits only, no namespaces", "rlimits のみで、名前空間による隔離はありません"),
    # --- plain data across the boundary, checked on both sides (wire.py) ------------------------------
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
    # --- starting the worker and its sandbox (zygote.py, level.py, worker.py) -------------------------
    "refusing_run_student_code": M(
        'refusing to run student code as root: {why}',
        '学生のコードを root として実行しません: {why}'),
    "cannot_build_namespace_sandbox": M(
        'cannot build the namespace sandbox: {why}. Fix that, or pass --allow-weak-sandbox to grade with rlimits only (student code could then read files and reach the network).',
        '名前空間のサンドボックスを作れません: {why}。それを直すか、--allow-weak-sandbox を指定して rlimits だけで採点してください（その場合、学生のコードがファイルを読んだりネットワークにつないだりできます）。'),
    "worker_needs_posix_pipes": M(
        'the {level} worker needs POSIX pipes and fork, which this platform does not have; use the subprocess level (chosen automatically where fork is missing)',
        '{level} の採点用プロセスには POSIX のパイプと fork が必要ですが、この環境にはありません。subprocess レベルを使ってください（fork がない環境では自動で選ばれます）'),
    "unknown_sandbox_level_grader": M(
        'unknown sandbox level {level} (GRADER_SANDBOX): use one of {levels}',
        '不明なサンドボックスのレベル {level} です（GRADER_SANDBOX）。{levels} のどれかを使ってください'),
    "cannot_build_namespace_sandbox_2": M(
        'cannot build the namespace sandbox: {why}',
        '名前空間のサンドボックスを作れません: {why}'),
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
    # --- a value too large to send back (zygote.py) ---------------------------------------------------
    "value_holds_mib_most": M(
        'the value holds {n} MiB; at most {limit} MiB can be returned',
        '値の大きさが {n} MiB です。返せるのは {limit} MiB までです'),
    "value_mib_wire_most": M(
        'the value is {n} MiB on the wire; at most {limit} MiB can be returned',
        '値は送ると {n} MiB になります。返せるのは {limit} MiB までです'),
}
