"""Across submissions: what a whole class's reports say together.

================  ==================================================================================
draft_entry       ``grader catalogue draft OUT --cluster N``: a catalogue entry and a mutant from a cluster.
item_analysis     Test-level item analysis: which tests tell students apart, and which look broken.
similarity        Which submissions look alike: code fingerprints and shared unusual behaviour, in groups.
unknown_mistakes  Unknown mistakes grouped: submissions whose failures match no catalogue id, by behaviour.
variant_copies    Copying as evidence: quiz answers or experiment results that fit another student's variant, not their own.
================  ==================================================================================
"""
