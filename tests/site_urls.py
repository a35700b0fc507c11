"""Every named URL of the site, its parameters filled in, for tests that must cover each view.

A view is covered as soon as it has a named URL pattern: nobody has to add it to a list.
"""

from __future__ import annotations

from django.urls import URLResolver, get_resolver, reverse
from django.utils import translation


def _patterns(patterns, namespace=(), outer=()):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = (*namespace, pattern.namespace) if pattern.namespace else namespace
            # Parameters of an include's own prefix (allauth's "keys/<int:pk>/") count too.
            parameters = (*outer, *pattern.pattern.regex.groupindex)
            yield from _patterns(pattern.url_patterns, inner, parameters)
        elif pattern.name:  # the admin's unnamed catch-all only redirects
            yield ":".join((*namespace, pattern.name)), (*outer, *pattern.pattern.regex.groupindex)


def url_names() -> list[str]:
    return sorted({name for name, _ in _patterns(get_resolver().url_patterns)})


def every_url(values: dict[str, str]) -> dict[tuple[str, str], str]:
    """{(name, language): URL} for each named pattern; a parameter not in `values` gets "1"."""
    urls = {}
    for name, parameters in _patterns(get_resolver().url_patterns):
        kwargs = {parameter: values.get(parameter, "1") for parameter in parameters}
        for language in ("en", "ar"):
            with translation.override(language):
                urls[name, language] = reverse(name, kwargs=kwargs)
    return urls


def url_values(*, quiz, attempt, user) -> dict[str, str]:
    """Parameters that name real objects: the quiz, the learner's attempt, a user."""
    from django.contrib.contenttypes.models import ContentType

    return {
        "app_label": "quizzes",
        "number": "1",
        "url": "junk/",
        "slug": quiz.slug,
        "pk": str(attempt.pk),
        "object_id": str(quiz.pk),
        "content_type_id": str(ContentType.objects.get_for_model(quiz).pk),
        "id": str(user.pk),
    }
