"""Benchmarks (`make bench`): each module measures one rule system and returns its figures."""
