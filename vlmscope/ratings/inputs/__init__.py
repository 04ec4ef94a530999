"""What the fits read: battles as arrays, the checks every input row passes, judge-verdict
records and the battles they become, and which battles each board is fitted on.

Imports nothing from `fits` or `boards`."""
