"""Truthful generalizations by rule, most specific first: dates and durations by ladders,
quantities by ranges of magnitude, places through a gazetteer hierarchy, and curated
hypernyms for nationalities, occupations, courts and other frequent terms.
``rules.RuleCandidates`` is the candidate source a release uses."""
