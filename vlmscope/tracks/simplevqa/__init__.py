"""SimpleVQA (m-a-p/SimpleVQA): factual visual questions graded Correct / Incorrect / Not attempted.

`rows` reads and validates the upstream files, `prompts` and `grading` reproduce the official
question prompt and grader, `metrics` and `atomic` aggregate, `report` holds one model's summary
and renders its tables, and `track` ties them to the runner.
"""
