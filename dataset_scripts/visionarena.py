"""VisionArena builder entry: the builders live in `vlmscope.datasets.visionarena`.

    python -m dataset_scripts.visionarena {chat,battle,bench} --out OUT_DIR [--data-dir DIR]

is `python -m vlmscope.datasets.visionarena`: a Hub-style folder that `load_dataset(OUT_DIR)` opens.
"""

from vlmscope.datasets.visionarena import (
    VisionArenaBattle,
    VisionArenaBench,
    VisionArenaChat,
    build,
    export,
    main,
)

__all__ = ["VisionArenaBattle", "VisionArenaBench", "VisionArenaChat", "build", "export", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
