"""One submission graded: the suites run in pytest against the sandboxed session, then the diagnosis.

=========  =========================================================================================
collector  The pytest plugin that turns suites into graded outcomes, for one or many submissions.
diagnosis  Outcomes + probe values → recognised mistakes: the engine that runs an assignment's recognisers.
runner     Rubric + submissions → graded reports.
select     Which tests of a report a regrade takes again: ``--test PATTERN`` matched against test ids.
=========  =========================================================================================
"""
