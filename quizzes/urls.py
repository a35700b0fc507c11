from django.urls import path

from .views import catalog, history, reminders, review, steps

app_name = "quizzes"

urlpatterns = [
    path("", catalog.catalog, name="catalog"),
    path("guides/", catalog.guide_list, name="guides"),
    path("guides/<slug:slug>/", catalog.guide_page, name="guide"),
    path("quizzes/<slug:slug>/", catalog.quiz_detail, name="detail"),
    path("quizzes/<slug:slug>/start/", steps.attempt_begin, name="start"),
    path("attempts/", history.history, name="history"),
    path("attempts/<int:pk>/", steps.attempt_resume, name="attempt"),
    path("attempts/<int:pk>/questions/<int:number>/", steps.attempt_question, name="question"),
    path("attempts/<int:pk>/finish/", steps.attempt_finish, name="finish"),
    path("attempts/<int:pk>/result/", steps.attempt_result, name="result"),
    path("questions/<int:pk>/report/", history.question_report, name="report"),
    path("review/", review.review, name="review"),
    path("review/answers/<int:pk>/", review.review_answer, name="review_answer"),
    path("review/statistics/", review.review_statistics_page, name="review_statistics"),
    path("review/answers/<int:pk>/rating/", review.review_rating, name="review_rating"),
    path(
        "review/reminders/stop/<str:token>/",
        reminders.reminders_unsubscribe,
        name="reminders_unsubscribe",
    ),
]
