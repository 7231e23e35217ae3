"""What a whole class's submissions say together, beyond each report.

=====================  ========================================================================
``similarity``         which submissions look alike (code fingerprints, shared rare behaviour);
                       ``similarity.csv``
``unknown_mistakes``   failures no catalogue id explains, grouped by behaviour
``item_analysis``      per-test pass rate and discrimination, and the tests that look broken
``draft_entry``        ``grader catalogue draft``: a catalogue entry and a mutant from a group
=====================  ========================================================================
"""
