"""Mahjong league: per-game league points and the bi-monthly average-point leaderboard.

Rules: data/rules/mahjong/ (rule versions with effective dates, placing points).
Calendar: data/calendars/<calendar>.toml (seasons, ranking periods). Aliases: data/aliases/.
"""
