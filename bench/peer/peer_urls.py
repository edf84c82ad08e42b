"""URLs of bench/run's peer: allauth's headless API only (/_allauth/app/v1/...)."""

from django.urls import include, path

urlpatterns = [path("_allauth/", include("allauth.headless.urls"))]
