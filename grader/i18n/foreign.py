"""What other programs write and the grader passes on inside its own sentences, in both languages.

The OS's ``strerror`` ("No such file or directory") and PyYAML's and libyaml's parser problems
("mapping values are not allowed here") fill a slot of a sentence the grader says. No code says
them by key: :func:`grader.i18n.messages.translate` only reads them back, so that they are shown
in Japanese too.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence as the other program writes it in English, and in Japanese.
FOREIGN: dict[str, M] = {
    "no_such_file_directory": M("No such file or directory", "そのようなファイルやフォルダはありません"),
    "permission_denied": M("Permission denied", "アクセスが許可されていません"),
    "found_character_cannot_start": M(
        "found character that cannot start any token",
        "ここに書けない文字があります（字下げにタブを使っていませんか。字下げは半角スペースで書いてください）"),
    "found_character_cannot_start_2": M(
        "found character {char} that cannot start any token",
        "ここに書けない文字 {char} があります（字下げにタブを使っていませんか。字下げは半角スペースで書いてください）"),
    "mapping_values_allowed_here": M(
        "mapping values are not allowed here",
        "ここには「キー: 値」を書けません（「:」の後の半角スペースや字下げを確かめてください）"),
}
