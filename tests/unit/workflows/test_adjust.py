"""grader adjust's reasons in a blind folder (grader/workflows/adjust.py): a name is never kept."""

from __future__ import annotations

from grader.ingest.anonymous import Identities
from grader.workflows.adjust import blind_reason


def test_a_reason_naming_a_student_of_a_blind_folder_is_kept_with_placeholders(tmp_path):
    plain = "copied from Alice Quinn (723462)"
    assert blind_reason(tmp_path, plain) == plain  # a folder with names keeps the reason as written
    ids = Identities(tmp_path)
    ids.id_for("Alice Quinn_723462_assignsubmission_file_", "723462", "Alice Quinn", "moodle")
    ids.id_for("山田 太郎_723458_assignsubmission_file_", "723458", "山田 太郎", "moodle")
    ids.save()
    assert blind_reason(tmp_path, plain) == "copied from [name] [name] ([id])"
    assert blind_reason(tmp_path, "太郎さん（山田太郎, 723458）の再提出") == "[name]さん（[name], [id]）の再提出"
    assert blind_reason(tmp_path, "late upload, see the forum") == "late upload, see the forum"
