"""What grader/prepare/ says, in English and in Japanese.

Its sentences: a new assignment, a release, the Gradescope zip, validate's mutants.

Every key here is said by code of grader/prepare/ (the comment above each group names the modules of
grader/prepare/ that say it). A sentence that code of two areas says is kept once, in the table of
the lower area (the order of tests/fitness/test_layers.py). tests/test_messages.py holds each table
to this.
"""

from __future__ import annotations

from grader.i18n.entry import M

#: key -> the sentence in English and in Japanese.
MESSAGES: dict[str, M] = {
    # --- a new assignment's name (scaffold.py) --------------------------------------------------------
    "assignment_name_most_characters": M(
        "{name}: an assignment name is at most {max} characters (this one has {n}); pick a shorter name "
        "(e.g. chapter09)",
        "{name}: 課題の名前は {max} 文字までです（この名前は {n} 文字）。短い名前にしてください（例: chapter09）"),
    # --- getting a term ready (gradescope_zip.py, release.py, scaffold.py, validate.py) -----------------
    "must_inside_course_repository": M(
        '{path}: must be inside the course repository {repo}',
        '{path}: 授業のリポジトリ {repo} の中にある必要があります'),
    "must_inside_course_repository_2": M(
        '{path}: the {what} must be inside the course repository {repo}',
        '{path}: {what}は授業のリポジトリ {repo} の中にある必要があります'),
    "folder_empty_choose_new": M(
        '{path}: the folder is not empty; choose a new one or pass --force',
        '{path}: フォルダが空ではありません。新しいフォルダを選ぶか、--force を指定してください'),
    "hidden_material_overlaps_what": M(
        '{path}: hidden material overlaps what students get; separate the folders',
        '{path}: 非公開の素材が学生に配るものと重なっています。フォルダを分けてください'),
    "assignment_s_plug_overlaps": M(
        "{path}: the assignment's plug-in overlaps the hidden suite; separate the folders",
        '{path}: 課題のプラグインが非公開のテストと重なっています。フォルダを分けてください'),
    "assignment_name_lower_case": M(
        "{name}: an assignment name is lower-case letters, digits and '_', starting with a letter (e.g. chapter09)",
        "{name}: 課題の名前は英小文字、数字、'_' で書き、英字で始めてください（例: chapter09）"),
    "exists_already_pick_another": M(
        '{name} exists already ({files}); pick another name or remove those files',
        '{name} はすでにあります（{files}）。別の名前にするか、それらのファイルを消してください'),
    "mutant_starts_mistake_id": M(
        "{path}: a mutant starts with '# mistake: <id>' and '# file: <name>.py'",
        "{path}: ミュータントは '# mistake: <id>' と '# file: <name>.py' で始めてください"),
    # --- grader gradescope: the sandbox note (gradescope_zip.py) --------------------------------------
    "gradescope_sandbox": M(
        "sandbox on this machine: {level}.\n"
        "On Gradescope run_autograder runs as root: student code runs in namespaces (bubblewrap) where "
        "the image allows them, otherwise at the rlimits level as user 'nobody', with source/ "
        "(reference, hidden suites, rubric) and results/ readable by root only. Python itself must "
        "be readable by every user, as the image's system Python is: where it is not, grading is "
        "refused rather than run as root.\n"
        "To check: grade a test submission and read its results.json, extra_data.sandbox "
        "(level and user); or in the image run: GRADER_SANDBOX=rlimits bash /autograder/run_autograder.",
        "このマシンのサンドボックス: {level}。\n"
        "Gradescope では run_autograder が root で動きます。学生のコードは、イメージが許せば名前空間"
        "（bubblewrap）の中で、許さなければ rlimits の段階でユーザー nobody として動きます。source/（模範解答、"
        "非公開テスト、ルーブリック）と results/ は root しか読めません。Python 自体はすべてのユーザーが読める"
        "必要があります（イメージのシステムの Python はそうなっています）。読めない場合は、root で動かさずに"
        "採点を断ります。\n"
        "確かめ方: テスト用の提出物を採点して results.json の extra_data.sandbox（段階とユーザー）を読むか、"
        "イメージの中で GRADER_SANDBOX=rlimits bash /autograder/run_autograder を実行してください。"),
    # --- proving and freezing the per-student variants (variants.py) ---------------------------------
    "variants_none_declared": M(
        "{file} declares no variants: add a variants: section (see docs/variants.md)",
        "{file} には変種がありません。variants: の節を書いてください（docs/variants.md を参照）"),
    "variants_need_reference": M(
        "{file}: proving variants needs the reference: add reference: to the rubric",
        "{file}: 変種の検証には模範解答が必要です。ルーブリックに reference: を書いてください"),
    "variants_lost_points": M("lost points in {tests} ({why})", "{tests} で失点（{why}）"),
    "variants_named": M("the diagnosis named {ids}", "診断が {ids} を指摘した"),
    "variants_mutant_unnamed": M(
        "the diagnosis did not name {id} (named: {named})",
        "診断が {id} を指摘しなかった（指摘: {named}）"),
    "variants_generator_changed": M(
        "the rubric's variants: changed since {path} was frozen; its {count} issued variants are kept as they are, "
        "so no student's variant changes (to issue a new table for a new term, move that file away first)",
        "{path} を固定した後にルーブリックの variants: が変更されています。発行済みの {count} 個の変種はそのまま"
        "使うので、どの学生の変種も変わりません（新しい学期に新しい表を発行するには、先にそのファイルを移動してください）"),
    "variants_student_twice": M("{student} and {other} are the same student for a release; list each student once",
                                "{student} と {other} はリリースでは同じ学生になります。学生は一度だけ書いてください"),
    "variants_student_id_bad": M(
        "{student} is not an LMS id a release folder can be named by (letters, digits, . _ @ -)",
        "{student} はリリースのフォルダ名にできる LMS の ID ではありません（英数字と . _ @ -）"),
    "variants_handout_header": M(
        "Your own numbers (variant {id}): {numbers}. Your work is checked and graded with these.",
        "あなたの数値（変種 {id}）: {numbers}。確認と採点はこの数値で行います。"),
    "variants_roster_column": M(
        "{path}: a CSV roster needs a column lms_id (or student_id, or student)",
        "{path}: CSV の名簿には lms_id（または student_id、student）の列が必要です"),
}
