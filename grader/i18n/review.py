"""What grader/review/ says, in English and in Japanese: the review app's pages and refusals.

Its sentences: the guard's refusals (security.py, said through app.py), the actions' errors
(actions.py, app.py), serving (serve.py); its labels: the pages' words (app.py's ``WORDS``) and the
queue's group titles (data.py).
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- the guard (security.py, app.py) ----------------------------------------------------------------
    "review_refused_host": M(
        "Refused: this address is not the review app's (open the launch URL grader review printed, at 127.0.0.1)",
        "拒否しました: このアドレスはレビューアプリのものではありません（grader review が表示した 127.0.0.1 の起動 URL を開いてください）"),
    "review_refused_session": M(
        "Refused: no review session in this browser; open the launch URL grader review printed",
        "拒否しました: このブラウザにはレビューのセッションがありません。grader review が表示した起動 URL を開いてください"),
    "review_refused_origin": M(
        "Refused: a change must come from a page of the review app itself (its Origin was missing or another site's)",
        "拒否しました: 変更はレビューアプリ自身のページからしか受け付けません（Origin がないか、別のサイトのものでした）"),
    "review_refused_csrf": M(
        "Refused: the page's form token did not match this session; reload the page and try again",
        "拒否しました: ページのフォームのトークンがこのセッションと一致しません。ページを読み込み直してからもう一度どうぞ"),
    "review_refused_token": M(
        "Refused: this launch URL is not valid or was already used; run grader review again for a new one",
        "拒否しました: この起動 URL は無効か、すでに使われています。grader review をもう一度実行して新しい URL を使ってください"),
    "review_refused_body": M(
        "Refused: the request is too large",
        "拒否しました: リクエストが大きすぎます"),
    # --- the actions (actions.py, app.py) ---------------------------------------------------------------
    "review_no_such_page": M(
        "No such page in this review (a student or group that is no longer in the batch?); go back to the queue",
        "このレビューにそのページはありません（バッチにもういない学生かグループかもしれません）。キューに戻ってください"),
    "review_comment_empty": M(
        "The comment is empty: write what the student should read",
        "コメントが空です。学生に読んでほしいことを書いてください"),
    "review_comment_lines": M(
        "{file} has lines 1 to {n}; a comment on lines {start} to {end} cannot be placed: select lines of the file",
        "{file} の行は 1〜{n} です。{start}〜{end} 行へのコメントは置けません。ファイルの行を選んでください"),
    "review_comment_no_file": M(
        "The submission has no file {file} to comment on",
        "この提出物にはコメントする {file} というファイルがありません"),
    "review_comment_reason": M(
        "comment on {file} lines {start}-{end}",
        "{file} の {start}-{end} 行へのコメント"),
    "review_already_undone": M(
        "Line {n} of the ledger is already taken back",
        "台帳の {n} 行目はすでに取り消されています"),
    "review_undo_reason": M(
        "taken back in the review",
        "レビューで取り消し"),
    "review_group_confirmed": M(
        "reviewed with the group {group}: the score stands",
        "グループ「{group}」としてレビュー済み: 得点はそのまま"),
    "review_item_given": M("rubric item given: {item} ({points})", "ルーブリック項目を付与: {item}（{points}）"),
    "review_item_taken": M("rubric item taken back: {item}", "ルーブリック項目を取り消し: {item}"),
    "review_item_repointed": M("rubric item's points changed: {item} ({was} → {now})",
                               "ルーブリック項目の点数を変更: {item}（{was} → {now}）"),
    "review_no_such_item": M("The rubric has no manual item {item}", "ルーブリックに手動の項目 {item} はありません"),
    "review_not_blind": M(
        "This review is not blind: there is nobody to reveal",
        "このレビューは匿名ではないため、明かす対象はありません"),
    "review_already_revealed": M(
        "This student is already revealed (the ledger says by whom and why)",
        "この学生はすでに明かされています（誰がなぜ明かしたかは台帳にあります）"),
    "review_not_a_number": M(
        "{what} must be a whole number, got {got}",
        "{what} は整数で指定してください（{got} が渡されました）"),
    "review_points_not_number": M(
        "The points must be a number, e.g. 2 or -1.5 (got {got})",
        "点数は数で指定してください（例: 2、-1.5。{got} が渡されました）"),
    # --- serving (serve.py) -----------------------------------------------------------------------------
    "review_serving_more": M(
        "Another reviewer's link: {url} (works once, in one browser)",
        "別のレビュー担当者用のリンク: {url}（1 回だけ、1 つのブラウザで有効）"),
    "review_serving_for": M(
        "{who}'s link: {url} (works once, in one browser; the ledger names {who})",
        "{who} さん用のリンク: {url}（1 回だけ、1 つのブラウザで有効。台帳には {who} と記録されます）"),
    "review_needs_extra": M(
        "grader review needs the web app pieces of the review extra: pip install 'grader[review]'",
        "grader review には review 追加パッケージの Web アプリ部品が必要です: pip install 'grader[review]'"),
    "review_port_taken": M(
        "Cannot listen on 127.0.0.1:{port} ({why}); give another --port, or leave it out for a free one",
        "127.0.0.1:{port} で待ち受けできません（{why}）。別の --port を指定するか、省略して空いているポートを使ってください"),
    "review_serving": M(
        "Review app at {url} (this link works once; Ctrl-C stops)",
        "レビューアプリ: {url}（このリンクは 1 回だけ有効です。Ctrl-C で終了）"),
}

#: key -> the label in English and in Japanese (the pages' words).
LABELS: dict[str, M] = {
    "review_title": M("Review", "レビュー"),
    "review_queue": M("Review queue", "レビューキュー"),
    "review_members": M("Members", "メンバー"),
    "review_reviewed": M("Reviewed", "レビュー済み"),
    "review_confirm_all": M("Confirm the whole group (a)", "グループ全員を確認 (a)"),
    "review_part": M("Part", "課題"),
    "review_total": M("Total", "合計"),
    "review_outputs": M("Outputs", "出力"),
    "review_failing": M("Failing tests", "不合格のテスト"),
    "review_diagnosis": M("Diagnosis", "診断"),
    "review_history": M("Ledger history", "台帳の履歴"),
    "review_comments": M("Comments", "コメント一覧"),
    "review_comment": M("Comment on lines (c)", "行へのコメント (c)"),
    "review_reference": M("Reference solution", "模範解答"),
    "review_diff": M("Diff", "差分"),
    "review_adjust": M("Change the score", "得点の変更"),
    "review_points": M("Points ±", "点数 ±"),
    "review_set": M("Set to", "設定値"),
    "review_reason": M("Reason", "理由"),
    "review_save": M("Save", "保存"),
    "review_undo": M("Undo", "取り消す"),
    "review_reveal": M("Reveal the student", "学生を明かす"),
    "review_next": M("Next", "次へ"),
    "review_prev": M("Previous", "前へ"),
    "review_help": M("Keys", "キー操作"),
    "review_keys": M("Keyboard", "キーボード操作"),
    "review_key_j": M("next submission in the group", "グループ内の次の提出物"),
    "review_key_k": M("previous submission in the group", "グループ内の前の提出物"),
    "review_key_digits": M("choose part 1–9 in the score form", "得点フォームで課題 1〜9 を選ぶ"),
    "review_key_c": M("comment on the selected lines (click, shift-click)", "選択した行にコメント（クリック、Shift+クリック）"),
    "review_key_s": M("save the score change and go to the next", "得点の変更を保存して次へ"),
    "review_key_u": M("undo the last adjustment or comment", "直前の調整かコメントを取り消す"),
    "review_key_r": M("show the reference solution and the diff", "模範解答と差分を表示"),
    "review_key_help": M("this help (Esc closes it)", "このヘルプ（Esc で閉じる）"),
    "review_conflict": M("Someone else changed this student meanwhile", "その間に別の人がこの学生を変更しました"),
    "review_theirs": M("Their lines (already in the ledger)", "相手の記録（台帳に記録済み）"),
    "review_mine": M("Yours (not written)", "あなたの変更（未記録）"),
    "review_send_again": M("Write mine as well", "自分の変更も記録する"),
    "review_back": M("Back", "戻る"),
    "review_no_source": M("The submission's files are not where the batch read them; only the report is shown",
                          "提出物のファイルがバッチの読んだ場所にないため、レポートだけを表示しています"),
    "review_lines": M("lines", "行"),
    "review_file": M("File", "ファイル"),
    "review_state_here": M("on these lines", "この行に対応"),
    "review_state_moved": M("moved with its lines", "行の移動に追従"),
    "review_state_outdated": M("outdated: the lines are gone", "古いコメント: 対象の行はもうありません"),
    "review_blind": M("Blind review", "匿名レビュー"),
    "review_refused": M("Not done", "実行できませんでした"),
    "review_as_text": M("shown as text", "テキストとして表示"),
    "review_line_cut": M("lines not shown", "表示していない行"),
    "review_group_of": M("Student", "学生"),
    "review_none": M("None.", "なし。"),
    "review_by": M("Reviewer", "レビュー担当"),
    "review_lang_other": M("日本語", "English"),
    "review_items": M("Rubric items given by hand", "手動で付けるルーブリック項目"),
    "review_item_points": M("Points of the item", "項目の点数"),
    "review_preview": M("Preview the change for every student", "全員への変更をプレビュー"),
    "review_apply_all": M("Write it: one ledger line per student", "記録する（学生ごとに台帳 1 行）"),
    "review_given": M("Given to", "付与した学生"),
    "review_final_now": M("Final score now", "現在の最終得点"),
    "review_final_after": M("Final score after", "変更後の最終得点"),
    "review_key_items": M("tick or untick rubric item 1–9", "ルーブリック項目 1〜9 を付ける・外す"),
    "review_cluster": M("Unknown mistake, cluster {n}", "未知の間違い クラスタ {n}"),
    "review_similar": M("Similar pair {n}", "類似ペア {n}"),
    "review_similar_score": M("code similarity {score}", "コードの類似度 {score}"),
    "review_needs_review": M("Adjustments that need review", "要確認の調整"),
    "review_everyone_else": M("Everyone else", "その他の全員"),
}
