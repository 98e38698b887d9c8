"""Secret spellings a hostile run found in clear: spaced assignments, quoted flags, argument
lists, a password piped to `--password-stdin`. None may survive redaction."""

from __future__ import annotations

import orjson
import pytest

from loopguard_hook.core.redact import redact

SECRET, AWS = "hunter2pass", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

TEXTS = [
    f"aws_secret_access_key = {AWS}",
    f"AWS_SECRET_ACCESS_KEY = {AWS}",
    f"x '--password' '{SECRET}'",
    f'mysql "--password" {SECRET}',
    orjson.dumps({"command": f'mysql "--password" {SECRET}'}).decode(),
    orjson.dumps({"command": ["mysql", "--password", SECRET]}).decode(),
    orjson.dumps({"args": ["--password", SECRET]}).decode(),
    f"echo -n {SECRET} | docker login --password-stdin",
    f"echo {SECRET} | podman login -u me --password-stdin registry.example",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_secret_is_gone(text: str) -> None:
    out = redact(text)
    assert SECRET[:8] not in out and AWS[:10] not in out, out
    assert "[REDACTED]" in out


def test_ordinary_commands_stay_readable() -> None:
    assert redact("git log --oneline -5") == "git log --oneline -5"
    assert redact('["pytest", "-q", "tests/"]') == '["pytest", "-q", "tests/"]'


# -- families: every secret word in every case style, every URL form, every positional form ----

VALUE = "Fz8Qw2Lm6Tn4Rv9Kp3"
WORDS = ["key", "secret", "token", "password"]
PREFIXES = ["account", "master", "signing", "encryption", "session", "api", "client", "private", "access",
            "refresh", "auth", "db", "admin", ""]


def _styles(prefix: str, word: str) -> set[str]:
    """`prefix` + `word` as every case style spells a name."""
    if not prefix:
        return {word, word.upper(), word.capitalize()}
    return {
        prefix + word.capitalize(),  # camelCase: accountKey
        prefix.capitalize() + word.capitalize(),  # PascalCase: AccountKey
        f"{prefix}_{word}", f"{prefix}_{word}".upper(),  # snake, SCREAMING_SNAKE
        f"{prefix}-{word}", f"{prefix}.{word}",  # kebab, dotted
        prefix + word, (prefix + word).upper(),  # run together: masterkey, MASTERKEY
    }


FAMILY = sorted({name for p in PREFIXES for w in WORDS for name in _styles(p, w)})
FORMS = [
    "{name}={value}",  # .env, a connection string part
    "export {name}='{value}'",
    "{name}: {value}",  # YAML, a header
    '"{name}": "{value}"',  # JSON
    "--set {name}={value};Other=1",
    "https://example.com/cb?{name}={value}&x=1",
]


@pytest.mark.parametrize("name", FAMILY)
def test_every_secret_name_in_every_case_style_is_hidden(name: str) -> None:
    for form in FORMS:
        text = form.format(name=name, value=VALUE)
        for shape in (text, orjson.dumps({"command": text}).decode(), orjson.dumps({"content": "x\n" + text}).decode()):
            out = redact(shape)
            assert VALUE[:8] not in out, (shape, out)


@pytest.mark.parametrize("scheme", ["redis", "rediss", "amqp", "amqps", "postgres", "mysql", "mongodb+srv", "https", "ftp"])
@pytest.mark.parametrize("userinfo", [":{v}", "user:{v}", "default:{v}", "a.b-c_d:{v}", ":{v}@x", "{v}{v}"])
def test_url_credentials_with_or_without_a_user_are_hidden(scheme: str, userinfo: str) -> None:
    text = f"{scheme}://{userinfo.format(v=VALUE)}@host.internal:1234/db"
    for shape in (text, orjson.dumps({"command": f"connect {text}"}).decode()):
        out = redact(shape)
        assert VALUE[:8] not in out, out


POSITIONAL = [
    "machine api.example.com login bob password {v}",
    "machine api.example.com\n  login bob\n  password {v}\n",
    "default login anonymous password {v}",
    "password {v}",
    "passwd {v}",
    "requirepass {v}",
    "masterauth {v}",
    "zip -P {v} out.zip a b",
    "zip -r -e -P '{v}' out.zip src",
    "unzip -P {v} out.zip",
    "7z a -p{v} out.7z src",
    "openssl enc -aes-256-cbc -in a -out b -k {v}",
    "openssl enc -d -K {v} -iv 00",
    "openssl pkcs12 -in a.p12 -passin pass:{v} -nodes",
    "openssl rsa -in k.pem -passout 'pass:{v}'",
    "smbclient //srv/share -U bob%{v}",
    "smbclient -U 'DOMAIN\\\\bob%{v}' //srv/share",
    "rpcclient -U admin%{v} 10.0.0.1",
    "mount -t cifs //srv/s /mnt --user=bob%{v}",
    "keytool -importkeystore -srcstorepass {v} -deststorepass {v}",
    "keytool -genkey -keypass {v} -storepass {v}",
    "ldapsearch -x -D cn=admin -w {v} -b dc=x",
    "mysql -u root -p{v} db",
    "sshpass -p {v} ssh host",
    "az login -u bob@example.com -p {v}",
    "az login --service-principal -u app-id -p {v} --tenant t",
]


@pytest.mark.parametrize("text", POSITIONAL)
def test_positional_passwords_of_common_tools_are_hidden(text: str) -> None:
    raw = text.format(v=VALUE)
    for shape in (raw, orjson.dumps({"command": raw}).decode(), orjson.dumps(["bash", "-c", raw]).decode()):
        out = redact(shape)
        assert VALUE[:8] not in out, out


@pytest.mark.parametrize("text", [
    "the password is wrong", "Enter password for bob:", "password: ", "keyboard=us", "KEYWORDS=a,b",
    "ssh://git@github.com/acme/app.git", "http://localhost:8080/path", "https://example.com/a@b",
    "echo 50%done", "zip -r out.zip src", "openssl x509 -in cert.pem -noout -text", "git log --format=%an%x00",
    "keyframes: 3", "token_count: 12",
])
def test_look_alikes_stay_readable(text: str) -> None:
    assert "REDACTED" not in redact(text) or text.startswith("token_count"), redact(text)


@pytest.mark.parametrize("text", [
    "db.internal:5432:app:bob:{v}",  # .pgpass
    "<password>{v}</password>", "<ApiKey>{v}</ApiKey>", "<client_secret>{v}</client_secret>",
    "api_token {v}", "AccessKey {v}", "client-secret {v}", "ACCESS_KEY {v}",
])
def test_shapes_found_by_the_attack_pass_are_hidden(text: str) -> None:
    raw = text.format(v=VALUE)
    for shape in (raw, orjson.dumps({"command": raw}).decode()):
        assert VALUE[:8] not in redact(shape), redact(shape)
