"""The grader's own sentences in Japanese: notes, problems, warnings and command-line errors.

Reports keep these sentences in English (``GradeReport.notes``, ``errors``, the sandbox
warning); every writer shows them through :func:`translate`, so a Japanese report or terminal
says them in Japanese. Each entry pairs the English sentence, with ``{slots}`` where the
words vary, and its Japanese. A slot's own text is translated too when it is one of these
sentences ("skipped x.py: {problem}"). A sentence with no entry is shown as it is; the tests
render real reports and fail on any English sentence left in a Japanese one.

Example::

    translate("skipped scaling.py: it is a symbolic link, not a file", "ja")
    # 'scaling.py を読み飛ばしました: シンボリックリンクで、ファイルではありません'
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["SENTENCES", "translate"]

#: English sentence -> Japanese. Slots are ``{name}``; both sides use the same names.
SENTENCES: dict[str, str] = {
    # --- reading a submission (grader/submission.py) ---------------------------------------
    "skipped {name}: {problem}": "{name} を読み飛ばしました: {problem}",
    "it is a symbolic link, not a file": "シンボリックリンクで、ファイルではありません",
    "it is {size}, over the {limit} limit for one file":
        "大きさが {size} で、1 ファイルの上限 {limit} を超えています",
    "over the {limit} limit": "上限 {limit} を超えています",
    "{origin} held {n} notebooks ({listed}); graded {chosen}":
        "{origin} にノートブックが {n} 個ありました（{listed}）。{chosen} を採点しました",
    "folder": "フォルダ",
    "zip": "zip",
    "used the answers cell of {chosen}; ignored answers.yaml":
        "{chosen} の答えのセルを使い、answers.yaml は使いませんでした",
    "used answers.yaml; the answers cell of {chosen} is as handed out":
        "answers.yaml を使いました。{chosen} の答えのセルは配布時のままです",
    "used the answers cell of {chosen}: answers.yaml is as handed out":
        "{chosen} の答えのセルを使いました。answers.yaml は配布時のままです",
    "ignored {notebooks}: the .py files were graded (to grade the notebook, submit it on its own)":
        "{notebooks} は使わず、.py ファイルを採点しました（ノートブックを採点するには、"
        "ノートブックだけを提出してください）",
    "ignored {notebook}: the .py files were graded (to grade the notebook, submit it on its own)":
        "{notebook} は使わず、.py ファイルを採点しました（ノートブックを採点するには、"
        "ノートブックだけを提出してください）",
    "graded {notebook}: it differs from the handed-out notebook and the .py files are as handed out":
        "{notebook} を採点しました。配布時のノートブックから書き換えられていて、.py ファイルは配布時のままです",
    "both {notebook} and the .py files ({files}) differ from what was handed out: graded the .py "
    "files and not {notebook}":
        "{notebook} と .py ファイル（{files}）の両方が配布時から書き換えられています。.py ファイルを"
        "採点し、{notebook} は採点していません",
    "neither the .py files nor {notebook} differ from what was handed out: graded the .py files "
    "as they are":
        ".py ファイルも {notebook} も配布時のままです。.py ファイルをそのまま採点しました",
    "found none of {files}, and no other .py files":
        "{files} のどれも見つからず、ほかの .py ファイルもありません",
    "found none of {files}; .py files present: {present}{tail}":
        "{files} のどれも見つかりません。ある .py ファイル: {present}{tail}",
    "found no {missing}; .py files present: {present}{tail}":
        "{missing} が見つかりません。ある .py ファイル: {present}{tail}",
    "{label} is not valid UTF-8; unreadable bytes were replaced by \ufffd":
        "{label} は正しい UTF-8 ではありません。読めないバイトは \ufffd に置き換えました",
    "{label} is not valid {encoding}; unreadable bytes were replaced by \ufffd":
        "{label} は正しい {encoding} ではありません。読めないバイトは \ufffd に置き換えました",
    "{filename} does not fully follow the notebook format ({first}); read it anyway":
        "{filename} はノートブックの形式に完全には従っていません（{first}）。そのまま読み込みました",
    "{filename}: cell {n} is a second answers cell; used the first":
        "{filename}: セル {n} は 2 つ目の答えのセルです。最初のセルを使いました",
    "{filename}: IPython magics and shell commands are not run when grading: {what}":
        "{filename}: IPython のマジックコマンドとシェルコマンドは採点では実行しません: {what}",
    "ignored {what} in the zip": "zip の中の {what} は使いませんでした",
    # --- finding submissions in a batch (grader/batch.py) ------------------------------------
    "not a submission": "提出物ではありません",
    "not a folder, notebook or zip": "フォルダ、ノートブック、zip のどれでもありません",
    "holds no scaling.py, softmax.py, variance.py, answers.yaml or notebook":
        "scaling.py, softmax.py, variance.py, answers.yaml、ノートブックのどれも入っていません",
    # --- grading (grader/runner.py, the worker) --------------------------------------------
    "answers.yaml is larger than {kib} KiB; it was not read":
        "answers.yaml が {kib} KiB を超えているため、読み込みませんでした",
    "answers.yaml is not valid YAML (line {line}, column {column}): {problem}":
        "answers.yaml は正しい YAML ではありません（{line} 行目、{column} 列目）: {problem}",
    "answers.yaml is not valid YAML: {problem}": "answers.yaml は正しい YAML ではありません: {problem}",
    "found character that cannot start any token":
        "ここに書けない文字があります（字下げにタブを使っていませんか。字下げは半角スペースで書いてください）",
    "found character {char} that cannot start any token":
        "ここに書けない文字 {char} があります（字下げにタブを使っていませんか。字下げは半角スペースで書いてください）",
    "mapping values are not allowed here":
        "ここには「キー: 値」を書けません（「:」の後の半角スペースや字下げを確かめてください）",
    "answers.yaml must map question ids to answers":
        "answers.yaml には「問題の id: 答え」の形で書いてください",
    "answers.yaml is too deeply nested or too large; it was not read":
        "answers.yaml の入れ子が深すぎるか大きすぎるため、読み込みませんでした",
    "diagnosis stopped early: {what}": "間違いの診断が途中で止まりました: {what}",
    "plot data not collected: {what}": "グラフ用のデータを集められませんでした: {what}",
    "diagnosis of {func}() failed: {what}": "{func}() の診断に失敗しました: {what}",
    "{where}: {what} (the cell's later lines did not run)":
        "{where}: {what}（このセルの残りの行は実行されていません）",
    "{where}: {what} — the tests that need {module}.py could not run":
        "{where}: {what} — {module}.py が必要なテストを実行できませんでした",
    "importing {filename} did not finish within {seconds} s; it was stopped":
        "{filename} の読み込みが {seconds} 秒以内に終わらなかったため、停止しました",
    "importing {filename} ended the worker process: {what}":
        "{filename} の読み込みで採点用プロセスが終了しました: {what}",
    "loading the submission took longer than the time limit":
        "提出物の読み込みが制限時間を超えました",
    "{test}: the test itself raised {name}: {what}": "{test}: テスト自体が {name} を送出しました: {what}",
    "no {part}.py in the submission": "提出物に {part}.py がありません",
    "{file} defines no function {func}()": "{file} に関数 {func}() が定義されていません",
    "{file}, line {line}: {what}": "{file} の {line} 行目: {what}",
    "no answer within {seconds} s": "{seconds} 秒以内に応答がありませんでした",
    "the submission used up its {seconds} s": "提出物全体の制限時間 {seconds} 秒を使い切りました",
    "the worker process died": "採点用プロセスが終了しました",
    "the worker could not be started again": "採点用プロセスを再起動できませんでした",
    "the worker's channel is closed": "採点用プロセスとの通信が閉じられました",
    "the worker sent an invalid frame: {what}": "採点用プロセスから不正なデータが届きました: {what}",
    # --- the sandbox (grader/sandbox/level.py) ---------------------------------------------
    "weak sandbox (rlimits only): {why}": "弱いサンドボックスです（rlimits のみ）: {why}",
    "sandbox weakened on request: rlimits only":
        "指定により弱いサンドボックスで採点しました: rlimits のみ",
    "sandbox weakened on request: {what}": "指定により弱いサンドボックスで採点しました: {what}",
    "weak sandbox: {why}: {what}": "弱いサンドボックスです: {why}: {what}",
    "one plain process per submission: time and output limits, a cleared environment, no "
    "filesystem or network isolation":
        "提出物ごとに通常のプロセスを一つ使います。時間と出力の上限、空にした環境変数はありますが、"
        "ファイルシステムとネットワークの隔離はありません",
    "this platform has no fork (Windows)": "この環境には fork がありません（Windows）",
    "os.fork is not available here": "ここでは os.fork が使えません",
    # --- grading on a cluster (grader/cluster.py, grader/_clusterworker.py) ----------------
    "{what} needs the {module} package, which is not installed ({why}); install it with: "
    "pip install \"grader[{extra}]\"":
        "{what} には {module} パッケージが必要ですが、インストールされていません（{why}）。"
        "次のコマンドでインストールしてください: pip install \"grader[{extra}]\"",
    "{spec}: no such scheduler file; pass the file that dask scheduler --scheduler-file wrote, or "
    "the scheduler's tcp:// or tls:// address":
        "{spec}: そのようなスケジューラファイルはありません。dask scheduler --scheduler-file が書き出した"
        "ファイルか、スケジューラの tcp:// または tls:// のアドレスを指定してください",
    "--cluster {spec}: expected a tcp:// or tls:// address, a scheduler file (.json) or a cluster "
    "file (.yaml)":
        "--cluster {spec}: tcp:// または tls:// のアドレス、スケジューラファイル（.json）、"
        "クラスタファイル（.yaml）のどれかを指定してください",
    "{path}: cannot read the cluster file ({why})": "{path}: クラスタファイルを読み込めません（{why}）",
    "{path}: the cluster file is not valid YAML ({problem})":
        "{path}: クラスタファイルは正しい YAML ではありません（{problem}）",
    "{path}: the cluster file must be a mapping with the key kind ({kinds}) or scheduler (an address)":
        "{path}: クラスタファイルには、キー kind（{kinds}）か scheduler（アドレス）を持つ対応表を書いてください",
    "{path}: kind and scheduler: give one of them (kind starts a cluster, scheduler names a running one)":
        "{path}: kind と scheduler: どちらか一方だけを書いてください（kind はクラスタを起動し、scheduler は"
        "動いているスケジューラを指します）",
    "{path}: workers: {value} is not a whole number of at least 1":
        "{path}: workers: {value} は 1 以上の整数ではありません",
    "{path}: {key}: unknown key beside scheduler; use only scheduler and security":
        "{path}: {key}: scheduler と一緒には使えないキーです。scheduler と security だけを書いてください",
    "{path}: scheduler: {value} is not a tcp:// or tls:// address":
        "{path}: scheduler: {value} は tcp:// または tls:// のアドレスではありません",
    "{path}: kind: {value} is not one of {kinds}": "{path}: kind: {value} は {kinds} のどれでもありません",
    "{path}: {key}: not an option of {cls} (kind: {kind}); its options are {options}":
        "{path}: {key}: {cls}（kind: {kind}）のオプションではありません。使えるオプションは {options} です",
    "{path}: security: must be a mapping with {keys}":
        "{path}: security: には {keys} を持つ対応表を書いてください",
    "{path}: security.{key}: unknown key; use {keys}": "{path}: security.{key}: 不明なキーです。{keys} を使ってください",
    "{path}: security.{key}: missing; mutual TLS needs the CA, this machine's certificate and its key "
    "(PEM files)":
        "{path}: security.{key}: ありません。相互 TLS には CA、このマシンの証明書、その鍵（PEM ファイル）が必要です",
    "{path}: security.{key}: no such file {value}": "{path}: security.{key}: ファイル {value} がありません",
    "--cluster {spec}: cannot reach the scheduler ({why}); check the address, that the scheduler "
    "runs, and the security: certificates":
        "--cluster {spec}: スケジューラに接続できません（{why}）。アドレス、スケジューラが動いていること、"
        "security: の証明書を確かめてください",
    "the Dask worker on {host} cannot grade: {why}": "{host} の Dask ワーカーでは採点できません: {why}",
    "the rubric or its suites at {path} differ from the client's; give every node the same course folder":
        "{path} のルーブリックかテストが、採点を始めたマシンのものと違います。すべてのノードに同じ授業フォルダを"
        "置いてください",
    "its grading processes keep stopping (see grader-logs in the worker's folder)":
        "採点用プロセスが何度も終了しています（ワーカーのフォルダの grader-logs を見てください）",
    "it holds another batch's grading processes (another rubric or seed)":
        "別の採点（別のルーブリックかシード）の採点用プロセスを持っています",
    "a grading worker on {host} stopped: {message}": "{host} の採点用プロセスが停止しました: {message}",
    "a shard failed on the cluster: {what}": "クラスタでの採点の一部が失敗しました: {what}",
    "its grading process stopped three times while grading it; it was not graded":
        "採点中に採点用プロセスが 3 回終了したため、採点していません",
    "grading it stopped its Dask worker every time it was tried; it was not graded (the worker's log "
    "has details)":
        "採点するたびに Dask ワーカーが終了したため、採点していません（詳しくはワーカーのログにあります）",
    # --- the command line (grader/cli.py, grader/rubric.py) --------------------------------
    "report written to {path}": "レポートを {path} に書き出しました",
    "reports in {n} formats written to {path}": "{n} 形式のレポートを {path} に書き出しました",
    "no rubric found: looked for rubrics/*.yaml in every folder {walks}. Run the command inside "
    "the course or release folder (or any folder in it), or pass --rubric PATH":
        "ルーブリックが見つかりません: {walks}のすべてのフォルダで rubrics/*.yaml を探しました。"
        "授業またはリリースのフォルダ（その中のどのフォルダでも可）で実行するか、--rubric PATH を"
        "指定してください",
    "from {start} up to {top}": "{start} から {top} まで",
    "{folder} holds {n} rubrics ({listed}) and neither the working folder nor the submission lies "
    "in one's exercises folder; pass --rubric PATH to choose one":
        "{folder} にはルーブリックが {n} 個あり（{listed}）、作業中のフォルダも提出物も、どれの "
        "exercises フォルダにも入っていません。--rubric PATH でどれかを選んでください",
    "{path}: not a submission: expected a folder with scaling.py/softmax.py/variance.py, a .ipynb "
    "notebook or a .zip of either{hint}":
        "{path}: 提出物ではありません。scaling.py/softmax.py/variance.py のあるフォルダ、.ipynb の"
        "ノートブック、またはそのどちらかの .zip を指定してください{hint}",
    " (to grade this file, pass the folder that holds it)":
        "（このファイルを採点するには、それが入っているフォルダを指定してください）",
    "{path}: cannot read it ({why}); check that the path is readable":
        "{path}: 読み込めません（{why}）。読み取れるパスか確かめてください",
    "{path}: no such rubric. Pass --rubric with the path of a rubric YAML file, or leave --rubric "
    "out to use the rubrics/ folder of the course or release you are in.":
        "{path}: そのようなルーブリックはありません。--rubric にルーブリックの YAML ファイルのパスを"
        "指定するか、--rubric を省いて、いま居る授業またはリリースの rubrics/ フォルダを使ってください。",
    "No such file or directory": "そのようなファイルやフォルダはありません",
    "Permission denied": "アクセスが許可されていません",
}

_SLOT = re.compile(r"\\\{(\w+)\\\}")


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    compiled = []
    # Longer sentences first: "skipped {name}: {problem}" must not swallow a more exact one.
    for en in sorted(SENTENCES, key=lambda t: (-len(_SLOT.sub("", re.escape(t))), t)):
        seen: set[str] = set()

        def slot(m: re.Match[str]) -> str:
            name = m.group(1)
            if name in seen:
                return f"(?P={name})"
            seen.add(name)
            return f"(?P<{name}>.+?)"

        compiled.append((re.compile(_SLOT.sub(slot, re.escape(en)), re.S), SENTENCES[en]))
    return compiled


def translate(text: str, lang: str) -> str:
    """``text`` in ``lang``: its Japanese when it is one of :data:`SENTENCES`, else as it is.

    Only ``ja`` translates; any other language gets ``text`` back unchanged.
    """
    if lang != "ja" or not text:
        return text
    for pattern, ja in _patterns():
        m = pattern.fullmatch(text)
        if m:
            slots = {k: translate(v, lang) for k, v in m.groupdict().items()}
            return ja.format(**slots)
    return text
