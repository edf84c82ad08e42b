"""The one change bench/run's peer makes to django-allauth, in the smallest way found: its Google provider looks
the token's key up in Google's X.509 certificate document (`{"<kid>": "-----BEGIN CERTIFICATE-----..."}`, the
format of https://www.googleapis.com/oauth2/v1/certs), while the stub providers publish Google's key as a JWKS
(the format of Google's v3 certs URL, the one the broker reads). The URL is allauth's own CERTS_URL setting; this
swaps only the key lookup for allauth's own JWKS lookup (`jwtkit.lookup_kid_jwk`, which its Apple provider uses),
so verification, the claims checked and the key fetch on every sign-in are allauth's as shipped."""

from django.apps import AppConfig


class PeerConfig(AppConfig):
    name = "peer_app"
    label = "peer_app"

    def ready(self):
        from allauth.socialaccount.internal import jwtkit
        from allauth.socialaccount.providers.google import views

        def verify_and_decode(app, credential, verify_signature=True):
            return jwtkit.verify_and_decode(
                credential=credential,
                keys_url=views.CERTS_URL,
                issuer=views.ID_TOKEN_ISSUER,
                audience=app.client_id,
                lookup_kid=jwtkit.lookup_kid_jwk,
                verify_signature=verify_signature,
            )

        views._verify_and_decode = verify_and_decode
