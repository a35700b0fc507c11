"""Moodle's GIFT format, read and written as plain data (no database):

- `format.py`: the parser and the writer, and the format as Daleel reads and writes it;
- `items.py`: one item of a file (a question of some kind, a description, or errors);
- `short_matching.py`: short-answer and matching questions;
- `scan.py`: the text layer (items, escapes, HTML, multilang), in linear time.

`instructors/imports.py` and `instructors/exports.py` move the data in and out of the models.
"""
