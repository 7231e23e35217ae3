"""The commands that chain the stages of a term: a batch, a regrade, a hand adjustment, a publication.

=======  ===========================================================================================
adjust   ``grader adjust`` and ``grader ledger``: hand adjustments of a finished batch's scores.
batch    ``grader batch``: grade every submission in a folder or an LMS zip export, in parallel.
changes  what moved a student's final score in a regrade or a resume, and why; their records.
publish  ``grader publish OUT``: release hidden tests' details in a batch's student views.
push     ``grader push OUT --to canvas|moodle|lti13``: the final scores and a short comment, into the LMS.
regrade  ``grader regrade``: run only the tests an instructor fixed, for every submission of a batch.
pull     ``grader pull SRC --from moodle``: the submissions, fetched into the folder a batch reads.
=======  ===========================================================================================
"""
