"""The LMSs' APIs: where ``grader push`` writes grades and comments, and ``grader pull`` reads the
submissions (Canvas now; Moodle and LTI 1.3 slot in).

=========  =========================================================================================================
platform   What every platform gives ``grader push``: the cells it holds now, a write, a refusal.
transport  HTTP with retries: backoff on 5xx and time-outs, ``Retry-After`` on 429; the token never said; downloads.
canvas     Canvas REST: the posting policy, the submissions, bulk grades with Progress polling; enrollments, files.
=========  =========================================================================================================
"""
