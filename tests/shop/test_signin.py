from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.test import Client

from shop.models import DemoShopper, PrivilegedAccount

pytestmark = pytest.mark.django_db


def test_signin_page_lists_demo_shoppers_and_says_it_is_fake(client):
    body = client.get("/signin/").content.decode()
    for name in ("Ann", "Ben", "Chloé", "Dev"):
        assert name in body
    assert "no password" in body


def test_the_sign_in_link_of_the_sign_in_page_keeps_where_the_shopper_was_going(client):
    assert 'href="/signin/?next=/signin/"' not in client.get("/signin/").content.decode()
    assert 'href="/signin/"' in client.get("/signin/").content.decode()
    page = client.get("/signin/", {"next": "/p/vela-crew-tee-ts-0001/"}).content.decode()
    assert 'href="/signin/?next=/p/vela-crew-tee-ts-0001/"' in page
    # Elsewhere it brings the shopper back to the page they were on.
    assert (
        'href="/signin/?next=/%3Fcategory%3Djeans"'
        in client.get("/", {"category": "jeans"}).content.decode()
    )


def test_signing_in_as_a_demo_shopper(client):
    response = client.post("/signin/", {"username": "ann", "next": "/products/x/"})
    assert response.status_code == 302 and response["Location"] == "/products/x/"
    page = client.get("/").content.decode()
    assert 'data-testid="signed-in-as">Ann<' in page


def test_typing_a_new_username_creates_a_shopper_without_password(client):
    client.post("/signin/", {"username": "new_shopper-1"})
    user = get_user_model().objects.get(username="new_shopper-1")
    assert not user.has_usable_password() and not user.is_staff
    assert client.get("/").wsgi_request.user == user


@pytest.mark.parametrize(
    "bad", ["ab", "has space", "x" * 31, "semi;colon", "", "zoë@home", "a/b", "é" * 31]
)
def test_invalid_usernames_get_a_form_error_and_create_nothing(client, bad):
    before = get_user_model().objects.count()
    response = client.post("/signin/", {"username": bad})
    assert response.status_code == 400
    assert "3 to 30 characters: letters of any alphabet" in response.content.decode()
    assert get_user_model().objects.count() == before
    assert not client.get("/").wsgi_request.user.is_authenticated


@pytest.mark.parametrize(
    ("typed", "account", "shown"),
    [
        ("Zoë", "zoë", "Zoë"),
        ("über", "über", "Über"),
        ("Łukasz_1", "łukasz_1", "Łukasz_1"),
        ("李小龙", "李小龙", "李小龙"),
        ("नमस्ते", "नमस्ते", "नमस्ते"),  # vowel signs and a virama: marks of the letters
    ],
)
def test_a_name_in_any_alphabet_signs_in(client, typed, account, shown):
    response = client.post("/signin/", {"username": typed})
    assert response.status_code == 302, response.content.decode()
    user = get_user_model().objects.get(username=account)
    assert client.get("/").wsgi_request.user == user
    assert f'data-testid="signed-in-as">{shown}<' in client.get("/").content.decode()


def test_letter_case_and_composition_do_not_make_another_shopper(client):
    client.post("/signin/", {"username": "Zoë"})
    first = client.get("/").wsgi_request.user
    for typed in ("ZOË", "zoe\u0308", " zoë "):
        other = Client()
        assert other.post("/signin/", {"username": typed}).status_code == 302
        assert other.get("/").wsgi_request.user == first
    assert get_user_model().objects.filter(username__startswith="zo").count() == 1


def refused(client, username: str, fragment: str) -> None:
    before = get_user_model().objects.count()
    response = client.post("/signin/", {"username": username})
    assert response.status_code == 400
    assert fragment in response.content.decode()
    assert not client.get("/").wsgi_request.user.is_authenticated
    assert get_user_model().objects.count() == before


def test_staff_usernames_are_refused(client):
    get_user_model().objects.create_user("boss", password="s3cret-Pass!", is_staff=True)
    refused(client, "boss", "staff account")


def test_a_superuser_without_staff_rights_is_refused(client):
    user = get_user_model().objects.create_user("root", is_superuser=True)
    user.set_unusable_password()
    user.save()
    refused(client, "root", "staff account")


def test_a_demoted_staff_account_stays_refused(client):
    """Demoted, stripped of its password and flagged as a demo shopper: still refused."""
    boss = get_user_model().objects.create_user("boss", password="s3cret-Pass!", is_staff=True)
    boss.is_staff = False
    boss.set_unusable_password()
    boss.save()
    DemoShopper.objects.create(user=boss, display_name="Boss", listed=True)
    refused(client, "boss", "staff account")
    assert "Boss" not in client.get("/signin/").content.decode()


def test_a_demo_shopper_promoted_then_demoted_stays_refused(client):
    dev = get_user_model().objects.get(username="dev")
    dev.is_staff = True
    dev.save()
    dev.is_staff = False
    dev.save()
    refused(client, "dev", "staff account")


def test_staff_from_before_the_mark_existed_are_refused(client):
    """Accounts that were staff when the mark was introduced are marked by the migration."""
    User = get_user_model()
    boss = User.objects.create_user("boss", password="x", is_staff=True)
    PrivilegedAccount.objects.all().delete()
    migration = importlib.import_module("shop.migrations.0002_privilegedaccount")
    migration.mark_existing_staff(django_apps, None)
    User.objects.filter(pk=boss.pk).update(is_staff=False, password="!unusable")
    DemoShopper.objects.create(user=boss, display_name="Boss")
    refused(client, "boss", "staff account")


def test_an_account_with_a_password_is_refused(client):
    get_user_model().objects.create_user("carol", password="a-real-password")
    refused(client, "carol", "account with a password")


def test_an_account_with_a_password_and_a_demo_flag_is_refused(client):
    user = get_user_model().objects.create_user("carol", password="a-real-password")
    DemoShopper.objects.create(user=user, display_name="Carol", listed=True)
    refused(client, "carol", "account with a password")
    assert "Carol" not in client.get("/signin/").content.decode()


def test_an_account_that_is_not_a_demo_shopper_is_refused(client):
    user = get_user_model().objects.create_user("dora")
    user.set_unusable_password()
    user.save()
    refused(client, "dora", "not a demo shopper")


def test_names_ignore_case_and_show_one_display_name(client):
    response = client.post("/signin/", {"username": "Zoe"})
    assert response.status_code == 302
    zoe = get_user_model().objects.get(username="zoe")
    assert 'data-testid="signed-in-as">Zoe<' in client.get("/").content.decode()
    client.post("/signout/")
    for typed in ("zoe", "ZOE", "  zOe "):
        client.post("/signin/", {"username": typed})
        assert client.get("/").wsgi_request.user == zoe
        assert 'data-testid="signed-in-as">Zoe<' in client.get("/").content.decode()
        client.post("/signout/")
    assert get_user_model().objects.filter(username__iexact="zoe").count() == 1


def test_a_demo_shopper_opens_in_any_case(client):
    client.post("/signin/", {"username": "ANN"})
    assert client.get("/").wsgi_request.user.username == "ann"


def test_a_staff_name_in_another_case_is_refused(client):
    get_user_model().objects.create_user("Admin", password="s3cret-Pass!", is_staff=True)
    refused(client, "admin", "staff account")


def test_open_redirects_are_not_followed(client):
    response = client.post("/signin/", {"username": "ben", "next": "//evil.example/"})
    assert response["Location"] == "/"


def test_sign_out_clears_the_session(client):
    client.post("/signin/", {"username": "ann"})
    client.post("/signout/")
    assert not client.get("/").wsgi_request.user.is_authenticated
    assert client.get("/signout/").status_code == 405
