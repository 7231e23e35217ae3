"""What grader/engines/ says, in English and in Japanese.

Its sentences: the local pool and its workers, the warm checker, grading on a Dask cluster.

Every key here is said by code of grader/engines/ (the comment above each group names the modules of
grader/engines/ that say it). A sentence that code of two areas says is kept once, in the table of
the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table
to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- grading on a cluster (dask.py, dask_worker.py) -----------------------------------------------
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
    "scheduler_file_no_address": M(
        "{path}: the scheduler file names no address (a JSON object with \"address\"); pass the file "
        "that dask scheduler --scheduler-file wrote",
        "{path}: スケジューラファイルにアドレスがありません（\"address\" を持つ JSON オブジェクト）。"
        "dask scheduler --scheduler-file が書き出したファイルを指定してください"),
    "cluster_plain_refused": M(
        "--cluster {spec}: refused: {address} is plain tcp:// (no TLS) to a host that is not this "
        "machine, and whoever can reach that port can run any code on every node of the cluster "
        "(Dask's protocol is pickle). Set up mutual TLS (a cluster file with a security: block and a "
        "tls:// scheduler; see docs/security.md, \"Grading on a cluster\"), or, on a network only you "
        "reach, pass --allow-plain-cluster",
        "--cluster {spec}: 使いません: {address} は TLS のない tcp:// で、このマシン以外のホストを指しています。"
        "そのポートに届く人は誰でも、クラスタのすべてのノードで任意のコードを実行できます（Dask の通信は "
        "pickle です）。相互 TLS を設定するか（security: ブロックのあるクラスタファイルと tls:// の"
        "スケジューラ。docs/security.md の「Grading on a cluster」を参照）、自分しか届かないネットワークなら "
        "--allow-plain-cluster を付けてください"),
    "cluster_plain_allowed": M(
        "the cluster {address} is reached over plain tcp:// without TLS (--allow-plain-cluster): whoever "
        "can reach that port can run any code on every node; set up TLS (docs/security.md)",
        "クラスタ {address} には TLS のない tcp:// でつないでいます（--allow-plain-cluster）。そのポートに届く人は"
        "誰でも、すべてのノードで任意のコードを実行できます。TLS を設定してください（docs/security.md）"),
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
    "grading_on_dask_workers": M(
        "grading on {n} Dask worker(s), by sandbox level: {workers}",
        "Dask ワーカー {n} 台で採点します（サンドボックスのレベルごと）: {workers}"),
    "dask_worker_joined": M(
        "a Dask worker joined and grades too, by sandbox level: {workers}",
        "Dask ワーカーが新たに加わり、採点を始めました（サンドボックスのレベルごと）: {workers}"),
    "waiting_dask_worker_join": M(
        "waiting for a Dask worker to join the scheduler",
        "Dask ワーカーがスケジューラーにつながるのを待っています"),
    # --- the batch's progress on the terminal (local_pool.py) -----------------------------------------
    "grading": M("grading", "採点中"),
    "eta": M("ETA", "残り"),
    "below_pass_errors_timeouts": M(
        "below pass {below}  errors {errors}  timeouts {timeouts}",
        "合格点未満 {below}  エラー {errors}  時間切れ {timeouts}"),
    # --- workers that stop; the warm checker (local_pool.py, batch_worker.py, warm_checker.py) --------
    "grading_workers_keep_stopping": M(
        'grading workers keep stopping; see {log}',
        '採点用プロセスが何度も停止しています。{log} を見てください'),
    "grading_worker_stopped_log": M(
        'a grading worker stopped: {why} (its log: {log})',
        '採点用プロセスが停止しました: {why}（ログ: {log}）'),
    "sandbox_did_start": M(
        'the sandbox did not start: {why}',
        'サンドボックスが起動しませんでした: {why}'),
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
}
