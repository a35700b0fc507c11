from django.apps import AppConfig
from django.utils.translation import pgettext_lazy


class QuizzesConfig(AppConfig):
    name = "quizzes"
    # Not the name of its main model: the admin's breadcrumb would say «الاختبارات ›
    # الاختبارات». Arabic names it «المحتوى التعليمي».
    verbose_name = pgettext_lazy("the admin's section of guides, quizzes and questions", "Quizzes")
