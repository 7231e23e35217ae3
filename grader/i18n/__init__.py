"""Sentences and labels in both languages, each under one key.

========  ==========================================================================================
messages  The grader's sentences in both languages, each kept once under a key.
========  ==========================================================================================
"""
