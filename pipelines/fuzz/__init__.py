"""Fuzzing and soak infrastructure (issue 14): `make fuzz` (mutation campaign through every
parser's `process`) and `make soak` (runs killed at random moments, compared with a clean run)."""
