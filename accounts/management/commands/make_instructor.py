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
        # In any case, as sign-in finds the account (`amina` is `Amina`'s); the spelling typed
        # first when accounts made before look-alikes were refused differ only in case.
        found = User.objects.filter(username__iexact=username.strip())
        user = found.filter(username=username.strip()).first() or (
            found.first() if found.count() == 1 else None
        )
        if user is None:
            if found.exists():
                names = ", ".join(sorted(found.values_list("username", flat=True)))
                raise CommandError(f"Several users are named {username!r} ({names}): say which.")
            raise CommandError(f"No user named {username!r}. Sign up first.")
        username = user.get_username()
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
