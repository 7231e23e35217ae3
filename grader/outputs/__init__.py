"""What a batch writes for people: gradebooks, pages and the class summary.

================  ==================================================================================
course_gradebook  ``grader gradebook``: one course table from the outputs of several ``grader batch`` runs.
gradebook         Stage 3 of ``grader batch``: the batch's own gradebook, ``gradebook.csv``.
gradebook_page    ``OUT/gradebook.<lang>.html``: the batch's gradebook as a page to read, one per course language.
lms_gradebooks    The gradebooks an LMS imports, made from the batch's rows: Canvas, Moodle, ``grader export``.
similarity_page   The similarity pages (``similarity.{ja,en}.html``) and ``grader similarity OUT``.
summary           Class summary of a batch: statistics, plots, and Markdown + HTML pages in Japanese and English.
================  ==================================================================================
"""
