"""VisionArena (lmarena-ai VisionArena-Chat, VisionArena-Battle, vision-arena-bench-v0.1): data readers."""
