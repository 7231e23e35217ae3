"""The commands that chain the stages of a term: a batch, a regrade, a hand adjustment, a publication.

===========  ===========================================================================================
adjust       ``grader adjust`` and ``grader ledger``: hand adjustments of a finished batch's scores.
batch        ``grader batch``: grade every submission in a folder or an LMS zip export, in parallel.
changes      what moved a student's final score in a regrade or a resume, and why; their records.
publish      ``grader publish OUT``: release hidden tests' details in a batch's student views.
push         ``grader push OUT --to canvas|moodle|lti13``: the final scores and a short comment, into the LMS.
regrade      ``grader regrade``: run only the tests an instructor fixed, for every submission of a batch.
pull         ``grader pull SRC_DIR --from canvas|moodle``: the submissions, into the folder ``grader batch`` reads.
pull_canvas  ``grader pull --from canvas``: the latest attempts, named as Canvas's own download names them.
pull_moodle  ``grader pull --from moodle``: the submitted work, named as Moodle's own download names it.
===========  ===========================================================================================
"""
