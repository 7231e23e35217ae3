"""grader.lms.lti13 against an LTI 1.3 platform: lti1p3platform's token endpoint and services,
served by tests/lti_platform.py with the storage of Moodle's gradebook services (each behaviour's
source is named there)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import jwt
import pytest

from grader.errors import UsageError
from grader.lms.lti13 import (ASSERTION_TYPE, SCOPES, Lti13Platform, LtiHttp, TokenSource, open_platform,
                              read_platform_file, with_path)
from grader.lms.platform import Cell, PlatformRefused
from tests.lti_platform import INSTRUCTOR, LEARNER, TEST_USER, LtiPlatform, platform_file, rsa_pem

KID = "grader-2026"
PRIVATE, PUBLIC = rsa_pem()
MEMBERS = [
    {"user_id": "u-101", "roles": [LEARNER], "name": "Aiko"},
    {"user_id": "u-102", "roles": [LEARNER], "name": "Ben"},
    {"user_id": "u-103", "roles": [LEARNER], "status": "Inactive"},
    {"user_id": "u-104", "roles": [LEARNER, TEST_USER], "name": "Test Student"},
    {"user_id": "u-105", "roles": [INSTRUCTOR]},
]


@pytest.fixture
def lti() -> Iterator[LtiPlatform]:
    p = LtiPlatform(PUBLIC, KID, [dict(m) for m in MEMBERS]).start()
    yield p
    p.stop()


def opened(lti: LtiPlatform, tmp_path: Path, sleep: Callable[[float], None] = lambda s: None,
           **fields: str) -> tuple[Lti13Platform, LtiHttp]:
    return open_platform(platform_file(tmp_path, lti, PRIVATE, **fields), maximum=20.0, sleep=sleep)


def test_the_token_request_is_a_client_credentials_grant_with_an_rs256_assertion(lti: LtiPlatform,
                                                                                  tmp_path: Path) -> None:
    """RFC 7523: iss = sub = client id, aud = the token endpoint, signed with the key of key_id."""
    platform, http = opened(lti, tmp_path)
    platform.current()
    form = next(r.body for r in lti.log if r.path.endswith("/token.php"))
    assert form["grant_type"] == "client_credentials" and form["client_assertion_type"] == ASSERTION_TYPE
    assert set(form["scope"].split()) == {*SCOPES, "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"}
    assert jwt.get_unverified_header(form["client_assertion"])["kid"] == KID
    claims = jwt.decode(form["client_assertion"], PUBLIC, algorithms=["RS256"], audience=lti.token_url)
    assert claims["iss"] == claims["sub"] == lti.client_id and claims["exp"] - claims["iat"] == 300
    assert len(lti.tokens_issued) == 1  # one token serves every request after
    assert len([r for r in lti.log if r.path.endswith("/token.php")]) == 1


def test_a_wrong_client_id_is_refused_with_the_platforms_words_and_no_secret(lti: LtiPlatform, tmp_path: Path) -> None:
    platform, http = opened(lti, tmp_path, client_id="someone-else")
    with pytest.raises(PlatformRefused) as refused:
        platform.current()
    assert "invalid_client" in str(refused.value) and "client_id" in str(refused.value)
    assert all(s not in str(refused.value) for s in http.tokens.secrets)


def test_the_line_item_is_found_by_resource_link_or_created_once(lti: LtiPlatform, tmp_path: Path) -> None:
    """lineitems.php: GET filtered by resource_link_id; POST makes one with label and scoreMaximum."""
    platform, _ = opened(lti, tmp_path)
    assert platform.find() is None
    assert platform.write([Cell("u-101", 15.5, "Score 15.5 / 20")])["u-101"].ok
    assert len(lti.lineitems) == 1
    item = lti.lineitems["1"]
    assert item["resourceLinkId"] == "rl-ch7" and item["scoreMaximum"] == 20.0
    assert item["label"] == "Chapter 7: attention scaling"
    again, _ = opened(lti, tmp_path)  # a second push finds it and makes none
    assert again.find() is not None and again.lineitem_url == item["id"]
    assert again.write([Cell("u-102", 3.0, "c")])["u-102"].ok
    assert len(lti.lineitems) == 1
    assert lti.held() == {"u-101": 15.5, "u-102": 3.0}


def test_two_matching_line_items_are_refused_naming_them(lti: LtiPlatform, tmp_path: Path) -> None:
    for n in ("1", "2"):
        lti.lineitems[n] = {"id": lti.lineitem_url(n), "label": "x", "scoreMaximum": 20, "resourceLinkId": "rl-ch7"}
        lti.results[n] = {}
    platform, _ = opened(lti, tmp_path)
    with pytest.raises(PlatformRefused) as refused:
        platform.current()
    assert "2 line items match" in str(refused.value) and lti.lineitem_url("2") in str(refused.value)


def test_scores_go_after_the_line_items_path_with_the_comment_always(lti: LtiPlatform, tmp_path: Path) -> None:
    """scores.php: …/lineitem/scores?type_id=1; AGS: a score without a comment clears the comment.
    The second score within the same second is refused (409, scores.php) and sent again a second later."""
    platform, _ = opened(lti, tmp_path, sleep=time.sleep)
    platform.write([Cell("u-101", 12.0, "Score 12 / 20. Mistake: divide-by-d-k")])
    post = next(r for r in lti.log if r.path.endswith("/scores"))
    assert post.path.endswith("/lineitems/1/lineitem/scores") and post.query == {"type_id": "1"}
    body = lti.scores_posted[-1]
    assert body["activityProgress"] == "Completed" and body["gradingProgress"] == "FullyGraded"
    assert body["scoreGiven"] == 12.0 and body["scoreMaximum"] == 20.0 and body["timestamp"].endswith("Z")
    assert "submission" not in body  # no submission time: the push makes no one late
    assert lti.comments() == {"u-101": "Score 12 / 20. Mistake: divide-by-d-k"}
    platform.write([Cell("u-101", 13.0, "")])  # (an empty comment is sent as it is: the platform's is cleared)
    assert "comment" in lti.scores_posted[-1] and lti.comments() == {"u-101": None}
    assert [r.status for r in lti.log if r.path.endswith("/scores")] == [200, 409, 200]


def test_the_roster_says_why_a_member_is_not_written(lti: LtiPlatform, tmp_path: Path) -> None:
    platform, _ = opened(lti, tmp_path)
    now = platform.current()
    assert not now["u-101"].refused and not now["u-102"].refused
    assert "inactive" not in now["u-103"].refused and "Inactive" in now["u-103"].refused
    assert now["u-104"].refused == "the platform's test student"
    assert "not a learner" in now["u-105"].refused and "Instructor" in now["u-105"].refused


def test_results_are_read_on_every_page_and_back_onto_the_batchs_scale(lti: LtiPlatform, tmp_path: Path) -> None:
    """A line item out of 100 (made in the platform): its results are scaled back to the batch's 20."""
    lti.lineitems["1"] = {"id": lti.lineitem_url("1"), "label": "x", "scoreMaximum": 100, "resourceLinkId": "rl-ch7"}
    lti.results["1"] = {}
    lti.page_size = 1
    platform, _ = opened(lti, tmp_path)
    platform.write([Cell("u-101", 15.5, "a"), Cell("u-102", 7.25, "b")])
    assert lti.held() == {"u-101": 77.5, "u-102": 36.25}
    now = platform.current()
    assert (now["u-101"].score, now["u-102"].score) == (15.5, 7.25)
    assert sum(1 for r in lti.log if r.path.endswith("/results")) == 2  # Link rel=“next” followed


def test_an_expired_token_is_renewed_and_the_request_sent_again(lti: LtiPlatform, tmp_path: Path) -> None:
    lti.token_life_uses = 2
    platform, http = opened(lti, tmp_path)
    out = platform.write([Cell(k, 10.0 + i, "c") for i, k in enumerate(("u-101", "u-102"))])
    assert all(o.ok for o in out.values())
    assert len(lti.tokens_issued) >= 2 and lti.held() == {"u-101": 10.0, "u-102": 11.0}
    assert any(r.status == 401 for r in lti.log)


def test_a_token_is_renewed_before_its_expires_in_runs_out(tmp_path: Path, lti: LtiPlatform) -> None:
    now = [1000.0]
    config = read_platform_file(platform_file(tmp_path, lti, PRIVATE))
    tokens = TokenSource(config, SCOPES, clock=lambda: now[0])
    http = LtiHttp(tokens, sleep=lambda s: None)
    first = http.token()
    assert http.token() == first
    now[0] += 3600 - 29  # within the margin before the platform's expires_in of 3600 s
    http.token()
    assert tokens.asked == 2  # (lti1p3platform's token holds no jti: made within the same second, it is the same)


def test_transient_failures_are_retried_and_one_refusal_fails_alone(lti: LtiPlatform, tmp_path: Path) -> None:
    lti.fail_requests = {3, 4}
    lti.rate_limit_every = 5
    platform, _ = opened(lti, tmp_path)
    out = platform.write([Cell("u-101", 9.0, "a"), Cell("u-999", 8.0, "b"), Cell("u-102", 7.0, "c")])
    assert out["u-101"].ok and out["u-102"].ok
    assert not out["u-999"].ok and out["u-999"].answer == "HTTP 400: Incorrect score received"
    assert lti.held() == {"u-101": 9.0, "u-102": 7.0}


def test_before_publication_nothing_is_written(lti: LtiPlatform, tmp_path: Path) -> None:
    platform, _ = opened(lti, tmp_path)
    with pytest.raises(PlatformRefused, match="grader publish"):
        platform.check(public=False)
    platform.check(public=True)


def test_the_platform_file_is_checked_and_names_the_fix(tmp_path: Path, lti: LtiPlatform) -> None:
    path = platform_file(tmp_path, lti, PRIVATE)
    (tmp_path / "tool-key.pem").chmod(0o644)
    with pytest.raises(UsageError, match="chmod 600"):
        read_platform_file(path)
    (tmp_path / "tool-key.pem").chmod(0o600)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"issuer": "x", "client_id": "c", "token_url": "http://lms.example.edu/token",
                               "private_key": "tool-key.pem", "key_id": "k", "lineitem": "https://lms.example.edu/li",
                               "colour": "red"}))
    with pytest.raises(UsageError, match="unknown keys colour"):
        read_platform_file(bad)
    data = json.loads(bad.read_text())
    del data["colour"]
    bad.write_text(json.dumps(data))
    with pytest.raises(UsageError, match="token_url http://lms.example.edu/token must start with https://"):
        read_platform_file(bad)
    data.update(token_url="https://lms.example.edu/token", lineitem="")
    bad.write_text(json.dumps(data))
    with pytest.raises(UsageError, match="name the line item"):
        read_platform_file(bad)


def test_the_token_is_never_sent_to_another_host(lti: LtiPlatform, tmp_path: Path) -> None:
    lti.lineitems["1"] = {"id": "https://elsewhere.example.org/li/1", "label": "x", "scoreMaximum": 20,
                          "resourceLinkId": "rl-ch7"}
    platform, _ = opened(lti, tmp_path)
    with pytest.raises(PlatformRefused, match="not on a host of the platform file"):
        platform.current()


def test_with_path_keeps_the_query_after_the_path() -> None:
    assert with_path("https://m.edu/s.php/2/lineitems/7/lineitem?type_id=1", "/scores") == \
        "https://m.edu/s.php/2/lineitems/7/lineitem/scores?type_id=1"
    assert with_path("https://m.edu/li?type_id=1", "", {"tag": "a b"}) == "https://m.edu/li?type_id=1&tag=a+b"


def test_two_hundred_students_under_faults_reach_the_platform_once_each(lti: LtiPlatform, tmp_path: Path) -> None:
    """5 % of requests answered 503, a 429 every 50th, the token expiring every 60 uses: every
    student holds the score sent, no one is written to twice, and one line item is made."""
    import random

    keys = [f"s-{i}" for i in range(200)]
    lti.members = [{"user_id": k, "roles": [LEARNER]} for k in keys]
    lti.fail_requests = set(random.Random(7).sample(range(1, 500), 25))
    lti.rate_limit_every = 50
    lti.token_life_uses = 60
    platform, http = opened(lti, tmp_path)
    assert set(platform.current()) == set(keys)
    out = platform.write([Cell(k, float(i % 21), f"Score {i % 21}") for i, k in enumerate(keys)])
    assert all(o.ok for o in out.values())
    assert lti.held() == {k: float(i % 21) for i, k in enumerate(keys)}
    assert len(lti.writes) == len({u for u, _ in lti.writes}) == 200 and len(lti.lineitems) == 1
    assert len(set(lti.tokens_issued)) >= 2 or len(lti.tokens_issued) >= 2


def test_members_of_one_name_each_get_their_own_score(tmp_path: Path) -> None:
    """Two learners named Jane Doe and two named 山田 太郎 (NRPS's ``name``): each score goes to its
    own ``user_id``, and the roster's refusals are by role and status, never by name."""
    members = [{"user_id": f"u-30{i}", "name": name, "roles": [LEARNER]}
               for i, name in enumerate(("Jane Doe", "Jane Doe", "山田 太郎", "山田 太郎"), 1)]
    members.append({"user_id": "u-305", "name": "Jane Doe", "roles": [INSTRUCTOR]})
    lti = LtiPlatform(PUBLIC, KID, members).start()
    try:
        platform, _ = opened(lti, tmp_path)
        now = platform.current()
        assert [k for k, v in sorted(now.items()) if not v.refused] == ["u-301", "u-302", "u-303", "u-304"]
        assert "not a learner" in now["u-305"].refused
        out = platform.write([Cell(f"u-30{i}", 10.0 * i, f"c{i}") for i in range(1, 5)])
        assert all(o.ok for o in out.values())
        assert lti.held() == {"u-301": 10.0, "u-302": 20.0, "u-303": 30.0, "u-304": 40.0}
        assert lti.comments() == {"u-301": "c1", "u-302": "c2", "u-303": "c3", "u-304": "c4"}
    finally:
        lti.stop()
