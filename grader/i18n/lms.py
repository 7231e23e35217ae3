"""What grader/lms/ says, in English and in Japanese.

Its sentences: the HTTP transport (transport.py), Canvas (canvas.py) and Moodle (moodle.py).
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- the transport (transport.py) -----------------------------------------------------------------
    "push_needs_lms_extra": M(
        "grader push needs the HTTP client of the lms extra: pip install 'grader[lms]'",
        "grader push には lms 追加パッケージの HTTP クライアントが必要です: pip install 'grader[lms]'"),
    "push_url_not_https": M(
        "--url {url}: give the LMS's address with https:// (e.g. https://canvas.example.edu); the token is "
        "never sent in clear",
        "--url {url}: LMS のアドレスを https:// から書いてください（例: https://canvas.example.edu）。"
        "トークンを暗号化せずに送ることはしません"),
    "push_no_answer": M(
        "{method} {url}: no answer after {n} attempts ({why})",
        "{method} {url}: {n} 回試しても応答がありません（{why}）"),
    # --- Canvas (canvas.py) ---------------------------------------------------------------------------
    "canvas_unreachable": M(
        "Canvas at {url} could not be reached: {why}; check --url and the network, then run the push again",
        "{url} の Canvas に接続できません: {why}。--url とネットワークを確かめて、もう一度実行してください"),
    "canvas_token_refused": M(
        "Canvas at {url} refused the token ({why}): make a new access token in Canvas (Account → Settings → "
        "New Access Token) and give it in CANVAS_TOKEN or --token-file",
        "{url} の Canvas がトークンを拒否しました（{why}）。Canvas で新しいアクセストークンを作り（アカウント → 設定 → "
        "新しいアクセストークン）、CANVAS_TOKEN か --token-file で渡してください"),
    "canvas_read_failed": M(
        "Canvas refused to read {path}: {why}; check --course and --assignment",
        "Canvas が {path} の読み取りを拒否しました: {why}。--course と --assignment を確かめてください"),
    "canvas_unpublished": M(
        "Canvas assignment {assignment} is not published, and Canvas takes no grades for it: publish it in "
        "Canvas, then run the push again",
        "Canvas の課題 {assignment} は公開されていないため、Canvas は成績を受け付けません。Canvas で公開してから、"
        "もう一度実行してください"),
    "canvas_posts_automatically": M(
        "Canvas assignment {assignment} posts grades automatically, and the results are not public yet "
        "(grader publish OUT has not been run): students would see them at once. Set its grade posting "
        "policy to Manually in Canvas's gradebook, or publish the results first; nothing was written",
        "Canvas の課題 {assignment} は成績を自動で公開する設定で、結果はまだ公開されていません（grader publish OUT "
        "を実行していません）。このままでは学生にすぐ見えてしまいます。Canvas の成績表で成績の公開ポリシーを「手動」に"
        "するか、先に結果を公開してください。何も書き込んでいません"),
    # --- Moodle (moodle.py) ---------------------------------------------------------------------------
    "moodle_unreachable": M(
        "Moodle at {url} could not be reached: {why}; check --url and the network, then run the command again",
        "{url} の Moodle に接続できません: {why}。--url とネットワークを確かめて、もう一度実行してください"),
    "moodle_token_refused": M(
        "Moodle at {url} refused the token ({code}: {message}): ask the Moodle administrator for a new token "
        "of the grader's web service (Site administration → Server → Web services → Manage tokens) and give "
        "it in MOODLE_TOKEN or --token-file",
        "{url} の Moodle がトークンを拒否しました（{code}: {message}）。Moodle の管理者に grader 用ウェブサービスの"
        "新しいトークンを発行してもらい（サイト管理 → サーバ → ウェブサービス → トークンを管理する）、MOODLE_TOKEN か "
        "--token-file で渡してください"),
    "moodle_function_refused": M(
        "Moodle at {url} does not let this token call {function} ({code}: {message}): the Moodle administrator "
        "adds the function to the grader's web service (docs/lms-moodle.md lists them all)",
        "{url} の Moodle はこのトークンに {function} の呼び出しを許していません（{code}: {message}）。Moodle の管理者が"
        "その関数を grader 用ウェブサービスに追加してください（必要な関数は docs/lms-moodle.md にあります）"),
    "moodle_read_failed": M(
        "Moodle refused {function}: {why}; check --assignment and that the token's user teaches the course",
        "Moodle が {function} を拒否しました: {why}。--assignment と、トークンのユーザーがそのコースの教員であることを"
        "確かめてください"),
    "moodle_no_assignment": M(
        "Moodle at {url} has no assignment {assignment} in the courses of the token's user: --assignment is the "
        "assignment's own id, not the id in its page's address (view.php?id=…). The assignments there: {known}",
        "{url} の Moodle には、トークンのユーザーのコースに課題 {assignment} がありません。--assignment は課題そのものの"
        " ID で、課題のページのアドレスにある ID（view.php?id=…）ではありません。そこにある課題: {known}"),
    "moodle_no_workflow": M(
        "Moodle assignment {assignment} ({name}) does not use the marking workflow, and the results are not public "
        "yet (grader publish OUT has not been run): Moodle would show each grade to the student at once. Turn on "
        "\"Use marking workflow\" in the assignment's settings (grades are then saved \"Ready for release\"), or "
        "publish the results first; nothing was written",
        "Moodle の課題 {assignment}（{name}）は評定ワークフローを使っておらず、結果はまだ公開されていません"
        "（grader publish OUT を実行していません）。このままでは Moodle が学生に評点をすぐ見せてしまいます。課題の設定で"
        "「評定ワークフローを使用する」を有効にするか（評点は「リリース準備完了」で保存されます）、先に結果を公開して"
        "ください。何も書き込んでいません"),
    "moodle_above_maximum": M(
        "the grade {score} is above the assignment's maximum grade in Moodle ({top}): set its Maximum grade to "
        "the rubric's total in the assignment's settings, then push again",
        "評点 {score} が Moodle の課題の最大評点（{top}）を超えています。課題の設定で最大評点をルーブリックの満点に"
        "してから、もう一度送信してください"),
    "moodle_not_a_student": M(
        "participant {key} is not a student of this Moodle assignment",
        "参加者 {key} はこの Moodle の課題の学生ではありません"),
}
