"""The LMSs' APIs: where ``grader push`` writes grades and comments (Canvas, LTI 1.3; Moodle slots in), and
``grader pull`` reads the submissions (Canvas).

=========  =========================================================================================================
platform   What every platform gives ``grader push``: the cells it holds now, a write, a refusal.
transport  HTTP with retries: backoff on 5xx and time-outs, ``Retry-After`` on 429; the token never said; downloads.
canvas     Canvas REST: the posting policy, the submissions, bulk grades with Progress polling; enrollments, files.
lti13      LTI 1.3 AGS and NRPS: a signed client-credentials token, the line item found or made once, scores.
=========  =========================================================================================================
"""
