"""Sanitized release: replacing each disclosive span of a document with a truthful
generalization (or a placeholder, a label, nothing) and measuring what meaning it kept."""
