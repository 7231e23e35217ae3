"""The LMSs' APIs: where ``grader push`` writes grades and comments (Canvas, Moodle, LTI 1.3), and
``grader pull`` reads the submissions (Canvas, Moodle).

=========  =========================================================================================================
platform   What every platform gives ``grader push``: the cells it holds now, a write, a refusal.
transport  HTTP with retries: backoff on 5xx and time-outs, ``Retry-After`` on 429; the token never said; downloads.
canvas     Canvas REST: the posting policy, the submissions, bulk grades with Progress polling; enrollments, files.
moodle     Moodle web services: students by participant number, grades saved in batches under the workflow.
lti13      LTI 1.3 AGS and NRPS: a signed client-credentials token, the line item found or made once, scores.
=========  =========================================================================================================
"""
