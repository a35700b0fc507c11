from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

INSTRUCTORS = "Instructors"


class Command(BaseCommand):
    help = "Make an existing user an instructor: staff, in the Instructors group (admin access)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--remove", action="store_true", help="Take the instructor role away instead."
        )

    def handle(self, *args, username: str, remove: bool, **options) -> None:
        User = get_user_model()
        try:
            user = User.objects.get(username=username)
        except User.DoesNotExist as error:
            raise CommandError(f"No user named {username!r}. Sign up first.") from error
        try:
            group = Group.objects.get(name=INSTRUCTORS)
        except Group.DoesNotExist as error:
            raise CommandError("The Instructors group is missing: run migrate.") from error
        if remove:
            user.groups.remove(group)
            if not user.is_superuser:
                user.is_staff = False
            user.save(update_fields=["is_staff"])
            self.stdout.write(f"{username} is no longer an instructor.")
            return
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.groups.add(group)
        self.stdout.write(f"{username} is now an instructor and can sign in to /admin/.")
