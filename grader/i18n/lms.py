"""What grader/lms/ says, in English and in Japanese.

Its sentences: the HTTP transport (transport.py) and Canvas (canvas.py).
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
}
