from django.urls import path

from shop import views

app_name = "shop"

urlpatterns = [
    path("", views.catalog, name="catalog"),
    path("products/<slug:slug>/", views.product_detail, name="product"),
    path("signin/", views.signin, name="signin"),
    path("signout/", views.signout, name="signout"),
]
