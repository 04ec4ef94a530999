"""The live vision arena: anonymous side-by-side battles whose votes feed the VisionArena board.

`config` (the operator's YAML), `pairing`, `safety` (pure checks and rate limits),
`moderation` (the operator's hook), `contestants` (streaming model clients), `battles` (what
the server keeps per battle), `vote_store` (the durable SQLite vote store), `shape` (a vote as a
VisionArena-Battle row), `export` and `hub_push` (the store as a Battle folder, pushed in batches),
`rating` (the live board) and `service` (the rules, bound by the Space's Arena tab).

A layer above `vlmscope.leaderboard` (whose read-only views it reuses for its tab), below `cli`.
"""
