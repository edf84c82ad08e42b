"""Django settings of bench/run's peer (row 1p): django-allauth's headless API for an app client, with JWT tokens,
Google's provider pointed at the stub providers' JWKS. Read from the environment that bench/lib/peer.sh sets:
PEER_STUB_URL (the stub providers), PEER_DATABASE (an SQLite file), PEER_JWT_KEY (a PEM file with the RSA key
allauth signs its tokens with), PEER_SECRET_KEY (Django's secret key, the same for every worker)."""

import os

SECRET_KEY = os.environ["PEER_SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
USE_TZ = True
TIME_ZONE = "UTC"
ROOT_URLCONF = "peer_urls"
WSGI_APPLICATION = "peer_wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.google",
    "allauth.headless",
    "peer_app.PeerConfig",
]

# `django-admin startproject`'s middleware, plus allauth's.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# SQLite with the broker's durability: WAL, and a sync on every commit (the broker runs synchronous = FULL).
# IMMEDIATE transactions so that the workers queue for the write lock instead of failing on it.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ["PEER_DATABASE"],
        "OPTIONS": {
            "init_command": "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
        },
    }
}

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
# Every request of the benchmark comes from 127.0.0.1: allauth's per-address limits (20 sign-ups a minute) would
# refuse the pool's first sign-ins. The broker's own limits do not apply to ID-token sign-ins either.
ACCOUNT_RATE_LIMITS = False

HEADLESS_ONLY = True
HEADLESS_CLIENTS = ["app"]
HEADLESS_TOKEN_STRATEGY = "allauth.headless.tokens.strategies.jwt.JWTTokenStrategy"
with open(os.environ["PEER_JWT_KEY"]) as _key:
    HEADLESS_JWT_PRIVATE_KEY = _key.read()

SOCIALACCOUNT_PROVIDERS = {
    "google": {
        # allauth reads Google's keys from this URL on every sign-in; peer_app.py makes it read them as a JWKS.
        "CERTS_URL": os.environ["PEER_STUB_URL"] + "/google/jwks",
        "APPS": [{"client_id": "stub-client.apps.googleusercontent.com", "secret": "", "key": ""}],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
