"""vlmscope: evaluate vision-language models the way the benchmark papers do."""

__version__ = "0.1.0"
