"""The libraries' strings that Daleel words itself.

django-allauth's and Django's admin's own Arabic catalogues say some things in words no other
page of ours uses («كود»، «المصادقة الثنائية»، «وزارة الخارجية» for allauth's "MFA»), in
imperatives on buttons, or with «تمّ» and a verbal noun. A catalogue in LOCALE_PATHS comes before
every app's (Django's documented lookup order), so a translation in locale/ar wins; `makemessages`
keeps only the messages it finds in our code, which is what this module is for: each string
below is a library's message, listed so that it stays in our catalogue with our wording
(docs/arabic-glossary.md records the choices). Nothing here is called at run time.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop, ngettext, pgettext_lazy

ALLAUTH = (
    # allauth.mfa's app label, which its catalogue renders as "Ministry of Foreign Affairs".
    gettext_noop("MFA"),
    gettext_noop("Accounts"),
    gettext_noop("Recovery codes"),
    gettext_noop("TOTP Authenticator"),
    gettext_noop("WebAuthn"),
    gettext_noop("Authenticator code"),
    gettext_noop("Code"),
    gettext_noop("Incorrect code."),
    gettext_noop("Invalid or expired key."),
    gettext_noop("Invalid login."),
    gettext_noop("The password reset token was invalid."),
    gettext_noop("The username and/or password you specified are not correct."),
    gettext_noop("The email address and/or password you specified are not correct."),
    gettext_noop("Too many failed login attempts. Try again later."),
    gettext_noop("Be patient, you are sending too many requests."),
    gettext_noop("Please type your current password."),
    gettext_noop("Incorrect password."),
    gettext_noop("This account is currently inactive."),
    gettext_noop("You cannot remove your primary email address."),
    gettext_noop("This email address is already associated with this account."),
    gettext_noop("A user is already registered with this email address."),
    gettext_noop("You cannot add more than %d email addresses."),
    gettext_noop("Your primary email address must be verified."),
    gettext_noop("Username can not be used. Please use other username."),
    gettext_noop("The new value must be different from the current one."),
    gettext_noop("You must type the same password each time."),
    gettext_noop("You must type the same email each time."),
    gettext_noop("Use your password"),
    gettext_noop("Use authenticator app or code"),
    gettext_noop("Email"),
    gettext_noop("Email (optional)"),
    gettext_noop("Remember Me"),
    pgettext_lazy("field label", "Login"),
    gettext_noop("Forgot your password?"),
    gettext_noop("Current Password"),
    gettext_noop("New Password"),
    gettext_noop("New Password (again)"),
    gettext_noop("Password (again)"),
    gettext_noop("email address"),
    gettext_noop("email addresses"),
    gettext_noop("verified"),
    gettext_noop("primary"),
    gettext_noop("email confirmation"),
    gettext_noop("email confirmations"),
    gettext_noop(
        "You cannot add an email address to an account protected by two-factor authentication."
    ),
    gettext_noop("You cannot deactivate two-factor authentication."),
    gettext_noop(
        "You cannot generate recovery codes without having two-factor authentication enabled."
    ),
    gettext_noop(
        "You cannot activate two-factor authentication until you have verified your email address."
    ),
    gettext_noop("Master key"),
    gettext_noop("Backup key"),
    gettext_noop("Key nr. {number}"),
    gettext_noop("Passwordless"),
    gettext_noop(
        "Enabling passwordless operation allows you to sign in using just this key, but "
        "imposes additional requirements such as biometrics or PIN protection."
    ),
    # Pages of allauth's that Daleel shows with allauth's own templates.
    gettext_noop("Account Inactive"),
    gettext_noop("This account is inactive."),
    gettext_noop("Confirm"),
    gettext_noop("Confirm Access"),
    gettext_noop("Please reauthenticate to safeguard your account."),
    gettext_noop("Enter your password:"),
    gettext_noop("Enter an authenticator code:"),
    gettext_noop("Email Address"),
    gettext_noop("Current email"),
    gettext_noop("Changing to"),
    gettext_noop("Change to"),
    gettext_noop("Your email address is still pending verification."),
    gettext_noop("Cancel Change"),
    gettext_noop("Change Email"),
    gettext_noop("Confirm Email Address"),
    gettext_noop(
        'Please confirm that <a href="mailto:%(email)s">%(email)s</a> is an email address '
        "for user %(user_display)s."
    ),
    gettext_noop(
        "Unable to confirm %(email)s because it is already confirmed by a different account."
    ),
    gettext_noop(
        'This email confirmation link expired or is invalid. Please <a href="%(email_url)s">'
        "issue a new email confirmation request</a>."
    ),
    gettext_noop("Verify Your Email Address"),
    gettext_noop(
        "We have sent an email to you for verification. Follow the link provided to finalize "
        "the signup process. If you do not see the verification email in your main inbox, "
        "check your spam folder. Please contact us if you do not receive the verification "
        "email within a few minutes."
    ),
    gettext_noop("Set Password"),
    gettext_noop("Change Password"),
    gettext_noop("Sign Out"),
    gettext_noop("Sign Up"),
    gettext_noop("Deactivate Authenticator App"),
    gettext_noop(
        "You are about to deactivate authenticator app based authentication. Are you sure?"
    ),
    gettext_noop("You are about to generate a new set of recovery codes for your account."),
    gettext_noop("This action will invalidate your existing codes."),
    gettext_noop("Are you sure?"),
    gettext_noop("Remove Security Key"),
    gettext_noop("Are you sure you want to remove this security key?"),
    gettext_noop("Usage"),
    gettext_noop("Passkey"),
    gettext_noop("Security key"),
    gettext_noop("This key does not indicate whether it is a passkey."),
    gettext_noop("Unspecified"),
    gettext_noop("Added on %(created_at)s"),
    gettext_noop("Last used %(last_used)s"),
    gettext_noop("Edit"),
    gettext_noop("Edit Security Key"),
    gettext_noop("Key"),
    # allauth's messages after an action.
    gettext_noop("You cannot remove your primary email address (%(email)s)."),
    gettext_noop("Confirmation email sent to %(email)s."),
    gettext_noop("You have confirmed %(email)s."),
    gettext_noop("Removed email address %(email)s."),
    gettext_noop("Password successfully changed."),
    gettext_noop("Password successfully set."),
    gettext_noop("Primary email address set."),
    gettext_noop("Authenticator app activated."),
    gettext_noop("Authenticator app deactivated."),
    gettext_noop("A new set of recovery codes has been generated."),
    gettext_noop("Save them  in a secure location now — they won't be shown again."),
    gettext_noop("Security key added."),
    gettext_noop("Security key removed."),
)

# Django's password rules and their errors, on sign-up, password change and reset.
PASSWORDS = (
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("Your password can’t be entirely numeric."),
    gettext_noop("The password is too similar to the %(verbose_name)s."),
    gettext_noop("This password is too common."),
    gettext_noop("This password is entirely numeric."),
)

ADMIN = (
    gettext_noop("Delete selected %(verbose_name_plural)s"),
    gettext_noop("Successfully deleted %(count)d %(items)s."),
    gettext_noop("Add another %(verbose_name)s"),
    gettext_noop("Add %(name)s"),
    gettext_noop("Add %s"),
    gettext_noop("Change %s"),
    gettext_noop("View %s"),
    gettext_noop("Select %s"),
    gettext_noop("Select %s to change"),
    gettext_noop("Select %s to view"),
    gettext_noop("Add link"),
    gettext_noop("Change or view list link"),
    gettext_noop("Model name"),
    gettext_noop("Add"),
    gettext_noop("Delete"),
    gettext_noop("Delete?"),
    gettext_noop("Run"),
    gettext_noop("Run the selected action"),
    gettext_noop("- Select an option -"),
    gettext_noop("Search"),
    gettext_noop("Search %(name)s"),
    gettext_noop("Pagination %(name)s"),
    gettext_noop("Filter by %(field_name)s"),
    gettext_noop(" By %(filter_title)s "),
    gettext_noop("0 of %(cnt)s selected"),
    gettext_noop("Save"),
    gettext_noop("Save as new"),
    gettext_noop("Save and add another"),
    gettext_noop("Save and continue editing"),
    gettext_noop("Save and view"),
    gettext_noop("Change password"),
    gettext_noop("Set password"),
    gettext_noop("Welcome,"),
    gettext_noop("View on site"),
    gettext_noop("History"),
    gettext_noop("Show all"),
    gettext_noop("Lookup"),
    gettext_noop("Added:"),
    gettext_noop("Changed:"),
    gettext_noop("Deleted:"),
    gettext_noop("Changed {fields} for {name} “{object}”."),
    gettext_noop("Changed {fields}."),
    gettext_noop("No fields changed."),
    gettext_noop("The {name} “{obj}” was added successfully."),
    gettext_noop("The {name} “{obj}” was changed successfully."),
    gettext_noop("The {name} “{obj}” was added successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may edit it again below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may add another {name} below."),
    gettext_noop("The %(name)s “%(obj)s” was deleted successfully."),
    gettext_noop("Yes, I’m sure"),
    gettext_noop("No, take me back"),
    gettext_noop("Password change"),
    gettext_noop("Your password was changed."),
    gettext_noop("Change my password"),
    # Django 6.1's messages its Arabic catalogue does not have yet (shown in English).
    gettext_noop(
        "Are you sure you want to delete the %(object_name)s “%(escaped_object)s”? All of the "
        "following related items will be deleted:"
    ),
    gettext_noop(
        "Deleting the %(object_name)s “%(escaped_object)s” would require deleting the "
        "following protected related objects:"
    ),
    gettext_noop(
        "Deleting the %(object_name)s “%(escaped_object)s” would result in deleting related "
        "objects, but your account doesn't have permission to delete the following types of "
        "objects:"
    ),
    gettext_noop(
        "Are you sure you want to delete the selected %(objects_name)s? All of the following "
        "objects and their related items will be deleted:"
    ),
    gettext_noop("Pagination %(name)s entries"),
    gettext_noop("Logout"),
    # The list's filter heading (Django's Arabic: «مرشّح»), the history page.
    gettext_noop("Filter"),
    gettext_noop("Change history: %s"),
    gettext_noop(
        "This object doesn’t have a change history. It probably wasn’t added via this admin site."
    ),
    # The admin's user page (django.contrib.auth).
    gettext_noop(
        "Whether the user will be able to authenticate using a password or not. If disabled, "
        "they may still be able to authenticate using other backends, such as Single Sign-On "
        "or LDAP."
    ),
    # Django's tasks and django-tasks-db's model, in the admin.
    pgettext_lazy("Task", "Ready"),
    pgettext_lazy("Task", "Running"),
    pgettext_lazy("Task", "Failed"),
    pgettext_lazy("Task", "Successful"),
    gettext_noop("status"),
    gettext_noop("enqueued at"),
    gettext_noop("started at"),
    gettext_noop("finished at"),
    gettext_noop("args kwargs"),
    gettext_noop("priority"),
    gettext_noop("task path"),
    gettext_noop("worker id"),
    gettext_noop("queue name"),
    gettext_noop("backend name"),
    gettext_noop("run after"),
    gettext_noop("return value"),
    gettext_noop("exception class path"),
    gettext_noop("traceback"),
    gettext_noop("Task Result"),
    gettext_noop("Task Results"),
    gettext_noop("- Select an option -"),
)


def _plurals(n: int) -> tuple[str, ...]:
    """Plural messages of the admin's (listed for makemessages; never called)."""
    return (
        ngettext(
            "%(count)s %(name)s was changed successfully.",
            "%(count)s %(name)s were changed successfully.",
            n,
        ),
        ngettext("%(total_count)s selected", "All %(total_count)s selected", n),
        ngettext("%(counter)s result", "%(counter)s results", n),
        ngettext("…and %(count)d more object.", "…and %(count)d more objects.", n),
        ngettext(
            "Your password must contain at least %(min_length)d character.",
            "Your password must contain at least %(min_length)d characters.",
            n,
        ),
        ngettext(
            "This password is too short. It must contain at least %d character.",
            "This password is too short. It must contain at least %d characters.",
            n,
        ),
    )
