"""The statistics: Bradley-Terry (exact Newton solver and the references' optimisers), style
control, bootstrap, online Elo, and the checks that refuse a fit that cannot be trusted.

Imports from `inputs` only, never from `boards`."""
