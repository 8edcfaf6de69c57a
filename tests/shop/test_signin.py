from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db


def test_signin_page_lists_demo_shoppers_and_says_it_is_fake(client):
    body = client.get("/signin/").content.decode()
    for name in ("Ann", "Ben", "Chloé", "Dev"):
        assert name in body
    assert "no password" in body


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


@pytest.mark.parametrize("bad", ["ab", "Ann", "has space", "x" * 31, "semi;colon", "", "über"])
def test_invalid_usernames_get_a_form_error_and_create_nothing(client, bad):
    before = get_user_model().objects.count()
    response = client.post("/signin/", {"username": bad})
    assert response.status_code == 400
    assert "3 to 30 characters" in response.content.decode()
    assert get_user_model().objects.count() == before
    assert not client.get("/").wsgi_request.user.is_authenticated


def test_staff_usernames_are_refused(client):
    get_user_model().objects.create_user("boss", password="s3cret-Pass!", is_staff=True)
    response = client.post("/signin/", {"username": "boss"})
    assert response.status_code == 400
    assert "staff" in response.content.decode()
    assert not client.get("/").wsgi_request.user.is_authenticated


def test_open_redirects_are_not_followed(client):
    response = client.post("/signin/", {"username": "ben", "next": "//evil.example/"})
    assert response["Location"] == "/"


def test_sign_out_clears_the_session(client):
    client.post("/signin/", {"username": "ann"})
    client.post("/signout/")
    assert not client.get("/").wsgi_request.user.is_authenticated
    assert client.get("/signout/").status_code == 405
