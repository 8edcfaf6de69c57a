"""ASGI application of the embedded server, on its own URLconf and middleware.

The server runs in its own process, so it repoints this process's settings at the server's
URLconf before Django builds its handler: the shop's URLs and database are never touched.
"""

from __future__ import annotations

from django.conf import settings

SERVER_URLCONF = "memoryapp.server.urls"
SERVER_MIDDLEWARE = ["memoryapp.server.middleware.BearerTokenMiddleware"]


def build_application():
    import django

    django.setup(set_prefix=False)
    settings.ROOT_URLCONF = SERVER_URLCONF
    settings.MIDDLEWARE = SERVER_MIDDLEWARE
    # DEBUG would keep every SQL query in memory and serve HTML error pages.
    settings.DEBUG = False
    from django.core.handlers.asgi import ASGIHandler

    # Import the routes now so the first request does not pay for it.
    import memoryapp.server.urls  # noqa: F401

    return ASGIHandler()
