"""A student's submission: a folder, a notebook or a zip, read into what the sandboxed worker loads.

========  =========================================================================================
model     What a submission is once read: ``Submission``, its ``Module`` and ``Chunk`` pieces,
          ``ReadLimits``, and ``SubmissionDict``, its plain-data shape for a worker's pipe.
load      ``load_submission`` and ``read_submission``: a path in, a ``Submission`` out.
choice    What the student worked on: ``Handout``, ``load_handout``, ``handout_of``, ``WorkChoice``,
          ``choose_work``.
notebook  Notebooks: a saved ``.ipynb`` or a kernel's cells, IPython syntax neutralised.
trees     A folder on disk or a zip in memory, listed and read with caps, never through a link.
========  =========================================================================================

The public paths are ``grader.Submission`` and ``grader.load_submission``.
"""
