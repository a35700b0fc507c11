"""The console mail backend of `make run`, printing mail as people read it."""

from __future__ import annotations

import email.policy

from django.core.mail.backends import console


class ReadableConsoleBackend(console.EmailBackend):
    """Django's console backend, without transfer encodings in the way.

    Django's own prints the message as it would go over SMTP: a reset link longer than 78
    characters comes out quoted-printable, cut by "=" line breaks, and Arabic text as base64.
    Lines of up to 998 characters (SMTP's own limit) in 8-bit UTF-8 print as they are, so
    that the link can be copied from the run command's output.
    """

    policy = email.policy.default.clone(max_line_length=998, utf8=True)

    def write_message(self, message) -> None:
        text = message.message(policy=self.policy).as_bytes().decode("utf-8")
        self.stream.write(f"{text}\n{'-' * 79}\n")
