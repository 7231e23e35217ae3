"""What the instructor declares: the rubric and everything read from it before any submission.

===========  =======================================================================================
assignment   One assignment of the course, as its rubric declares it: parts, files, functions, plug-in.
catalogue    The mistake-catalogue format: an assignment's ``mistakes.yaml`` → frozen records → messages.
due          Due dates, extensions and the late penalty, per student.
fingerprint  What decides a report besides the submission: the files :func:`rubric_fingerprint` hashes.
rubric       The rubric (a package: model, load, checks): one YAML file -> one frozen ``Rubric``, checked once.
variants     Per-student variants: the rubric's ``variants:``, the course secret, the frozen table, who gets which.
===========  =======================================================================================
"""
