"""The instructors' tools: what the admin offers beyond editing rows.

GIFT import and export, the CSV of attempts, item analysis, translation coverage, the admin
pages that show them (`tools.InstructorToolsMixin`) and the inline formsets that let rows
trade positions (`reordering`). Learners' rules live beside this package, in `quizzes/`.
"""
