"""The attempt engine: the rules of an attempt and what they read and write, by part.

- `rules.py`: every rule, once (start, deadline, which step is open, feedback, exam mode,
  finishing), as plain functions over plain data;
- `services.py`: the calls views make, one per request (start, a step, an answer, submit
  all, the result), and closing attempts past their deadline;
- `state.py`: an attempt as the rules read it (`AttemptRow`, `AttemptState`), and its reading:
  the step's in one statement, any attempt through the ORM, a quiz's start rules for a
  learner;
- `writes.py`: what the rules decide, written (an answer, its review card, finishing);
- `responses.py`: a recorded answer as pages show it.

Marking a response is `quizzes/grading.py`'s, shared with the review. This file imports none
of the parts, so that the models can use `rules` (which imports no model).
"""


def __getattr__(name: str) -> object:
    # A timed attempt's closing task queued by an earlier release is named
    # `quizzes.attempts.attempt_close`, its path before this package: found here still.
    if name == "attempt_close":
        from .services import attempt_close

        return attempt_close
    raise AttributeError(name)
