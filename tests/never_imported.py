"""A module no test imports: a config naming `tests.never_imported:Track` must not load it."""

raise AssertionError("tests.never_imported was imported")
