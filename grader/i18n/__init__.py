"""Sentences and labels in both languages: the machinery, and one table per area of the code.

Code imports :mod:`grader.i18n.messages` only; the tables are read through it.

==============  ===========================================================================
messages        the machinery (``said``, ``say``, ``translate``, ``label``, ...) and the merged
                ``MESSAGES``, ``LABELS`` and ``FOREIGN``
entry           ``M``: one entry of a table, its English and its Japanese
foreign         what other programs write inside the grader's sentences: read back, never said
sandbox         what grader/sandbox/ says (the zygote and the wire spell theirs out)
kit             what grader/kit/ says: the checks' and the quiz's feedback, the hooks file
spec            what grader/spec/ says: the rubric, the catalogue, due dates
report          what grader/report/ says: the writers' words and headings, the ledger
ingest          what grader/ingest/ says: reading submissions, finding them in a batch
grading         what grader/grading/ says: running one submission's tests
insight         what grader/insight/ says: similarity, unknown mistakes, drafted entries
outputs         what grader/outputs/ says: the gradebooks, the class summary, the pages
engines         what grader/engines/ says: the local pool, the warm checker, Dask
lms             what grader/lms/ says: the HTTP transport, Canvas
workflows       what grader/workflows/ says: batch, adjust, regrade, publish, push
prepare         what grader/prepare/ says: scaffold, validate, release, the Gradescope zip
review          what grader/review/ says: the review app's pages and refusals
cli             what grader/cli/ says: the command line's own lines and click's usage errors
notebook        what grader/notebook.py says: the notebook's check cell
==============  ===========================================================================
"""
