from django.urls import path

from . import review_views, views

app_name = "quizzes"

urlpatterns = [
    path("", views.catalog, name="catalog"),
    path("guides/", views.guide_list, name="guides"),
    path("guides/<slug:slug>/", views.guide_page, name="guide"),
    path("quizzes/<slug:slug>/", views.quiz_detail, name="detail"),
    path("quizzes/<slug:slug>/start/", views.attempt_begin, name="start"),
    path("attempts/", views.history, name="history"),
    path("attempts/<int:pk>/", views.attempt_resume, name="attempt"),
    path("attempts/<int:pk>/questions/<int:number>/", views.attempt_question, name="question"),
    path("attempts/<int:pk>/finish/", views.attempt_finish, name="finish"),
    path("attempts/<int:pk>/result/", views.attempt_result, name="result"),
    path("questions/<int:pk>/report/", views.question_report, name="report"),
    path("review/", review_views.review, name="review"),
    path("review/answers/<int:pk>/", review_views.review_answer, name="review_answer"),
]
