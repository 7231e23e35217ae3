"""What a batch writes for people to read and import, from its reports.

=====================  ========================================================================
``gradebook``          the batch's rows (:class:`~grader.outputs.gradebook.GradebookRow`) and
                       ``gradebook.csv``; who submitted a report and the late policy put into it
``lms_gradebooks``     the gradebooks an LMS imports (Canvas CSV, Moodle worksheet and feedback
                       zip) and ``grader export``
``gradebook_page``     ``gradebook.{ja,en}.html``: ``gradebook.csv`` as a page to read
``summary``            the class summary: statistics, plots, Markdown and HTML pages
``similarity_page``    ``similarity.{ja,en}.html`` and ``grader similarity OUT``
``course_gradebook``   ``grader gradebook``: one course table from several batches
=====================  ========================================================================
"""
