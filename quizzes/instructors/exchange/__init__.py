"""Quizzes in and out of Daleel as Moodle XML and QTI, beside GIFT (`../gift/`).

- `content.py`: a file's quizzes as plain data (what every format reads into and writes from),
  and the notes said about a file;
- `safety.py`: XML parsed with entities and the network off, zip packages read within caps;
- `rich_text.py`: the HTML of other systems as the site's Markdown, and Markdown as XHTML;
- `moodle.py`: Moodle XML, read and written;
- `qti_read.py` and `qti_write.py`: QTI packages (Canvas's QTI 1.2, QTI 2.1 and 2.2) read,
  QTI 2.1 written;
- `images.py`: images found in a file, held to the upload's checks;
- `store.py`: the plain data written as quizzes, in one transaction; `dump.py`: a quiz read
  into the plain data for the exporters.

`instructors/imports.py` is the door every format comes through (the `import_quiz` command and
the admin's import page); `instructors/exports.py` holds the downloads.
"""
