"""Spaced review of missed questions, by its parts:

- `scheduler.py`: the FSRS scheduler over the learners' review cards (a miss creates one,
  every later answer moves it);
- `badge.py`: what is due now and later today, kept a minute per learner for the
  navigation's badge;
- `services.py`: the review page's calls (the card to review, an answer, a self-rating,
  practice).
"""
