#!/usr/bin/env python3
"""Checks docker-compose.yml where no Docker engine runs.

1. The file validates against the Compose Specification's JSON schema, vendored beside this script as
   scripts/compose-spec.json (from github.com/compose-spec/compose-spec, commit 170098ba, Apache-2.0; unchanged),
   or the one at the path in $COMPOSE_SPEC_SCHEMA.
2. Every depends_on names a service of the file.
3. Every JSON file the broker service mounts from the repository exists and parses, and the file BROKER_CONFIG
   names inside the container is one of those mounts.
4. A postgres:// BROKER_DATABASE names a service of the file as its host, which has a healthcheck, and the broker
   waits for it (depends_on with condition service_healthy).

Needs PyYAML and jsonschema (Debian: python3-yaml python3-jsonschema). Exits 0 when all is well, 1 otherwise.
"""

import json
import os
import sys
from urllib.parse import urlsplit

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPOSE_FILE = os.path.join(REPO, "docker-compose.yml")
SCHEMA_CANDIDATES = [
    os.environ.get("COMPOSE_SPEC_SCHEMA", ""),
    os.path.join(REPO, "scripts", "compose-spec.json"),
]


def fail(message):
    print(f"check-compose: {message}", file=sys.stderr)
    sys.exit(1)


try:
    import yaml
    import jsonschema
except ImportError as error:
    fail(f"{error.name} is missing: apt-get install python3-yaml python3-jsonschema (or pip install pyyaml jsonschema)")


def load_schema():
    for path in SCHEMA_CANDIDATES:
        if path and os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                return os.path.normpath(path), json.load(handle)
    tried = ", ".join(os.path.normpath(p) for p in SCHEMA_CANDIDATES if p)
    fail(f"the Compose schema is missing (tried {tried}); restore scripts/compose-spec.json or set COMPOSE_SPEC_SCHEMA")


def service_names_in(depends_on):
    """depends_on is a list of names or a mapping of name -> {condition, ...}."""
    if isinstance(depends_on, dict):
        return list(depends_on.keys())
    if isinstance(depends_on, list):
        return list(depends_on)
    return []


def volume_mounts(service):
    """(source, target) of bind mounts in short ("src:dst[:mode]") or long ({type: bind, ...}) syntax."""
    mounts = []
    for volume in service.get("volumes", []) or []:
        if isinstance(volume, str):
            parts = volume.split(":")
            if len(parts) >= 2:
                mounts.append((parts[0], parts[1]))
        elif isinstance(volume, dict) and volume.get("type") == "bind":
            mounts.append((volume.get("source", ""), volume.get("target", "")))
    return mounts


def environment_of(service):
    environment = service.get("environment", {}) or {}
    if isinstance(environment, list):
        pairs = (item.split("=", 1) for item in environment if "=" in item)
        return {key: value for key, value in pairs}
    return {key: "" if value is None else str(value) for key, value in environment.items()}


def main():
    if not os.path.isfile(COMPOSE_FILE):
        fail(f"{COMPOSE_FILE} does not exist")
    with open(COMPOSE_FILE, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    if not isinstance(document, dict):
        fail("docker-compose.yml is not a YAML mapping")

    schema_path, schema = load_schema()
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
    problems = []
    for error in errors:
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        problems.append(f"schema: {where}: {error.message}")

    services = document.get("services") or {}
    if not services:
        problems.append("no services")
    for name, service in services.items():
        for dependency in service_names_in((service or {}).get("depends_on")):
            if dependency not in services:
                problems.append(f"services.{name}.depends_on names {dependency!r}, which is not a service")

    broker = services.get("broker")
    if broker is None:
        problems.append("there is no broker service")
    else:
        mounted = {}
        for source, target in volume_mounts(broker):
            if not source.startswith((".", "/")):
                continue  # a named volume
            if source.startswith("/"):
                problems.append(f"services.broker mounts {source}, outside the repository")
                continue
            path = os.path.normpath(os.path.join(REPO, source))
            if not os.path.exists(path):
                problems.append(f"services.broker mounts {source}, which does not exist in the repository")
                continue
            mounted[target] = path
            if path.endswith(".json"):
                try:
                    with open(path, encoding="utf-8") as handle:
                        json.load(handle)
                except ValueError as error:
                    problems.append(f"{source} is not valid JSON: {error}")
        database = environment_of(broker).get("BROKER_DATABASE", "")
        if database.startswith(("postgres://", "postgresql://")):
            host = urlsplit(database).hostname
            depends_on = broker.get("depends_on") or {}
            if host not in services:
                problems.append(f"services.broker: BROKER_DATABASE names host {host!r}, which is not a service")
            elif not (services[host] or {}).get("healthcheck"):
                problems.append(f"services.{host} has no healthcheck for the broker to wait on")
            elif not isinstance(depends_on, dict) or (depends_on.get(host) or {}).get("condition") != "service_healthy":
                problems.append(f"services.broker must depend on {host} with condition: service_healthy")
        config = environment_of(broker).get("BROKER_CONFIG")
        if not config:
            problems.append("services.broker sets no BROKER_CONFIG")
        elif config not in mounted:
            problems.append(f"services.broker: BROKER_CONFIG={config} is not a file the service mounts")

    if problems:
        for problem in problems:
            print(f"check-compose: {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"check-compose: docker-compose.yml OK ({len(services)} services; schema {schema_path})")


if __name__ == "__main__":
    main()
