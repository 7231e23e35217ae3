"""What grader/lms/ says, in English and in Japanese.

Its sentences: the HTTP transport (transport.py), Canvas (canvas.py), LTI 1.3 (lti13.py) and Moodle
(moodle.py).
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
    # --- LTI 1.3 (lti13.py) ---------------------------------------------------------------------------
    "lti_needs_lms_extra": M(
        "grader push --to lti13 signs its token requests with PyJWT and cryptography, of the lms extra: "
        "pip install 'grader[lms]'",
        "grader push --to lti13 はトークンの要求に PyJWT と cryptography（lms 追加パッケージ）で署名します: "
        "pip install 'grader[lms]'"),
    "lti_file_unreadable": M(
        "{path}: the platform file cannot be read ({why}); give a YAML or JSON file as docs/lms-lti13.md shows",
        "{path}: プラットフォームのファイルを読めません（{why}）。docs/lms-lti13.md のとおり YAML か JSON で書いてください"),
    "lti_file_not_mapping": M(
        "{path}: the platform file must be a mapping of keys (issuer, client_id, token_url, …), as docs/lms-lti13.md "
        "shows",
        "{path}: プラットフォームのファイルはキー（issuer、client_id、token_url など）の対応表にしてください"
        "（docs/lms-lti13.md を参照）"),
    "lti_file_unknown_keys": M(
        "{path}: unknown keys {keys}; the keys are {known}",
        "{path}: 知らないキーがあります: {keys}。使えるキーは {known} です"),
    "lti_file_missing": M(
        "{path}: missing {keys}; the platform's administrator gives them when the tool is registered "
        "(docs/lms-lti13.md)",
        "{path}: {keys} がありません。ツールを登録するときにプラットフォームの管理者が知らせます（docs/lms-lti13.md）"),
    "lti_file_no_lineitem": M(
        "{path}: name the line item: lineitem (its URL), or lineitems (the context's line items URL) with "
        "resource_link_id, resource_id or tag to find it",
        "{path}: 成績項目を指定してください: lineitem（その URL）、または lineitems（コンテキストの成績項目一覧の URL）と、"
        "それを探すための resource_link_id、resource_id、tag のいずれか"),
    "lti_file_url_not_https": M(
        "{path}: {key} {url} must start with https://; the token is never sent in clear",
        "{path}: {key} の {url} は https:// で始めてください。トークンを暗号化せずに送ることはしません"),
    "lti_key_file_mode": M(
        "{path} may be read by others (mode {mode}): the tool's private key must be yours alone; run chmod 600 {path}",
        "{path} は他の人も読めます（モード {mode}）。ツールの秘密鍵は本人だけが読めるようにしてください: chmod 600 {path}"),
    "lti_key_unreadable": M(
        "{path}: the tool's private key cannot be read ({why}); check private_key in the platform file",
        "{path}: ツールの秘密鍵を読めません（{why}）。プラットフォームのファイルの private_key を確かめてください"),
    "lti_key_not_pem": M(
        "{path}: not a PEM private key (-----BEGIN PRIVATE KEY-----); make one as docs/lms-lti13.md shows",
        "{path}: PEM 形式の秘密鍵（-----BEGIN PRIVATE KEY-----）ではありません。docs/lms-lti13.md のとおり作ってください"),
    "lti_key_unusable": M(
        "{path}: the private key cannot sign RS256 ({why}); give an RSA key of 2048 bits or more",
        "{path}: この秘密鍵では RS256 で署名できません（{why}）。2048 ビット以上の RSA の鍵を使ってください"),
    "lti_token_refused": M(
        "the platform's token endpoint {url} gave no token ({why}): check client_id, key_id and token_url in the "
        "platform file, and that the platform holds the tool's public key (its JWKS) and grants the scopes",
        "プラットフォームのトークンエンドポイント {url} がトークンを出しませんでした（{why}）。プラットフォームのファイルの "
        "client_id、key_id、token_url と、プラットフォームにツールの公開鍵（JWKS）が登録されスコープが許可されているかを"
        "確かめてください"),
    "lti_foreign_url": M(
        "{url} is not on a host of the platform file: the token is not sent there",
        "{url} はプラットフォームのファイルにあるホストではないため、トークンを送りません"),
    "lti_unreachable": M(
        "the platform could not be reached at {url}: {why}; check the platform file and the network, then run the "
        "push again",
        "{url} でプラットフォームに接続できません: {why}。プラットフォームのファイルとネットワークを確かめて、もう一度"
        "実行してください"),
    "lti_read_failed": M(
        "the platform refused to read {url}: {why}; check the URLs in the platform file and the scopes granted to "
        "the tool",
        "プラットフォームが {url} の読み取りを拒否しました: {why}。プラットフォームのファイルの URL と、ツールに許可された"
        "スコープを確かめてください"),
    "lti_lineitems_many": M(
        "{n} line items match ({ids}): name the one to write with lineitem: in {path}; nothing was written",
        "{n} 個の成績項目が当てはまります（{ids}）。書き込む項目を {path} の lineitem: で指定してください。"
        "何も書き込んでいません"),
    "lti_lineitem_create_failed": M(
        "the platform did not create the line item at {url}: {why}; check that the tool may manage line items "
        "(the lineitem scope)",
        "プラットフォームが {url} に成績項目を作りませんでした: {why}。ツールが成績項目を管理できる（lineitem スコープ）か"
        "確かめてください"),
    "lti_not_public": M(
        "the results are not public yet (grader publish OUT has not been run), and an LTI platform shows a score "
        "to the student as soon as it takes it: publish the results first; nothing was written",
        "結果はまだ公開されていません（grader publish OUT を実行していません）。LTI のプラットフォームは受け取った得点を"
        "すぐ学生に見せるため、先に結果を公開してください。何も書き込んでいません"),
    "lti_member_test_user": M(
        "the platform's test student", "プラットフォームのテスト用の学生"),
    "canvas_member_test_student": M(
        "Canvas's test student (Student View)", "Canvas のテスト用の学生（学生ビュー）"),
    "moodle_student_withdrawn": M(
        "withdrawn from the course (the enrolment is suspended or has ended in Moodle)",
        "コースから外れています（Moodle で受講登録が停止されたか、終了しています）"),
    "lti_member_inactive": M(
        "not active in the course (status {status})", "コースで有効ではありません（状態 {status}）"),
    "lti_member_not_learner": M(
        "not a learner of the course (roles: {roles})", "コースの学習者ではありません（ロール: {roles}）"),
    # --- a token expired midway, and downloads (canvas.py, transport.py) ------------------------------
    "canvas_token_expired": M(
        "Canvas at {url} stopped taking the token midway (it expired or was deleted), and no further grade "
        "was sent: make a new access token in Canvas (Account → Settings → New Access Token), give it in "
        "CANVAS_TOKEN or --token-file, and run the push again; what was written is kept",
        "{url} の Canvas が途中でトークンを受け付けなくなりました（期限切れか削除）。以降の成績は送っていません。"
        "Canvas で新しいアクセストークンを作り（アカウント → 設定 → 新しいアクセストークン）、CANVAS_TOKEN か "
        "--token-file で渡して、もう一度実行してください。書き込んだ分はそのまま残ります"),
    "download_bad_url": M("{url}: not an http(s) address; the file was not downloaded",
                          "{url}: http(s) のアドレスではないため、ファイルをダウンロードしていません"),
    "download_refused": M("{url}: the download was refused (HTTP {status})",
                          "{url}: ダウンロードを拒否されました（HTTP {status}）"),
    "download_redirects": M("{url}: more than {n} redirects; the file was not downloaded",
                            "{url}: リダイレクトが {n} 回を超えたため、ファイルをダウンロードしていません"),
    "download_too_large": M("{url}: larger than {limit} bytes; the file was not downloaded",
                            "{url}: {limit} バイトを超えるため、ファイルをダウンロードしていません"),
    "download_token_refused": M(
        "{url}: the token was refused (HTTP 401; it expired or was deleted), and no further file was downloaded: "
        "make a new access token, give it in CANVAS_TOKEN or --token-file, and run the command again",
        "{url}: トークンが拒否されました（HTTP 401。期限切れか削除）。以降のファイルはダウンロードしていません。"
        "新しいアクセストークンを作り、CANVAS_TOKEN か --token-file で渡して、もう一度実行してください"),
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
