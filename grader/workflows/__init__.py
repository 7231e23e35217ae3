"""The commands that chain the stages below them over a batch's folder.

=============  ===============================================================================
``batch``      ``grader batch``: find, grade (local pool or cluster), write, gradebooks, summary
``regrade``    ``grader regrade``: only the matching tests again, merged into the kept reports
``adjust``     ``grader adjust``: a hand adjustment in the ledger, then every view again
``publish``    ``grader publish``: hidden tests shown in full where the rubric says so
=============  ===============================================================================
"""
