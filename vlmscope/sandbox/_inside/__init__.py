"""Code that runs inside the sandbox worker processes.

Standard library only and no imports from the rest of vlmscope: the worker is started with
`python -I -S`, which puts neither site-packages nor the project on `sys.path`, and imports this
package by its directory. Modules here import each other relatively so that they work both as
`vlmscope.sandbox._inside` (parent side, type checking, tests) and as the top-level `_inside`
package (worker side).
"""
