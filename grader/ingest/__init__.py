"""Submissions in: what a batch or a check reads and who it belongs to, before anything runs.

===========  =======================================================================================
anonymous    Blind grading (``grader batch … --anonymous``): a random id in place of who submitted.
corpus       The correct-style corpus: the course's own correct submissions, read as ``grader validate`` and a batch read them.
discovery    Stage 1 of ``grader batch``: find the submissions in a folder or an LMS export zip.
find_rubric  Which rubric a command grades when none is named: the course's ``rubrics/`` folder, as git finds ``.git``.
lms          How Moodle, Canvas and Blackboard name the files of a bulk download, read back.
submission   Folder | notebook | zip -> ``Submission`` (a package: model, load, choice, notebook, trees).
===========  =======================================================================================
"""
