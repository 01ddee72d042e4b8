"""Faithful answers over the example corpus's other pages (rate limits, on-call, retention, hosting, incident runbook,
mobile releases), worded and laid out as chat models write them, each over its page's chunks with their titles (as
the ask path chunks them), through the real pipeline: ControlPlane.respond with a scripted model and the shipped
verifier. Found by writing these on 2026-12-06: 35 of the 43 were verified at c8f31a1, 37 at c9584e7 (the two
lead-in lists), 41 now (a participle describing its noun, "No one" read as the evidence's "Nobody", a pronoun clause
after a semicolon, a negated description named in parentheses); the 2 left are known gaps, asserted still
unverified, each named in README.md. 71 more were written later that day (below): 60 verified; the known gaps
are asserted still unverified. Two more rounds followed that day (26 and 47 faithful wordings; 4 of the last are
known gaps), and a sixth in other shapes later that day (32, 3 known gaps). Lies worded the same ways (``LIES``)
are asserted neither verified nor shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controlplane.pytest_plugin import GateHarness
from tests.nli.shipped_pipeline import needs_shipped_verifier, one, pages_as_evidence

pytestmark = needs_shipped_verifier

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
PAGES = ["api-rate-limits.md", "on-call-policy.md", "data-retention-policy.md", "stack-and-hosting.md",
         "incident-response-runbook.md", "mobile-release-process.txt"]
Q = {"stack": "How is our hosting set up?", "inc": "What do we do in an incident?", "mob": "How do mobile releases work?",
     "rate": "What are the API rate limits?", "oncall": "How does on-call work?", "ret": "How long do we keep data?"}


def corpus_evidence() -> tuple[list[dict], dict[str, str]]:
    """Every page's chunks as retrieved evidence (E1, E2 ... in page order), and the page of each id."""
    return pages_as_evidence(CORPUS, PAGES)


CASES = {
 "std_plan": ("rate", one("The Standard plan allows 600 requests per minute per key, with a burst of 100. [E2]", "E2")),
 "ent_plan": ("rate", one("On the Enterprise plan, an API key gets 3,000 requests per minute and a burst of 500. [E2]", "E2")),
 "unauth": ("rate", one("Unauthenticated requests are limited to 60 requests per minute per IP address. [E2]", "E2")),
 "bookings": ("rate", one("POST /api/v2/bookings is limited to 30 requests per minute per user on every plan. [E2]", "E2")),
 "lead_table": ("rate", ("The rate limits are:\n- Standard plan: 600 requests per minute per key [E2]\n- Enterprise plan: 3,000 requests per minute per key [E2]",
     [("Standard plan: 600 requests per minute per key [E2]", ["E2"]), ("Enterprise plan: 3,000 requests per minute per key [E2]", ["E2"])])),
 "429": ("rate", one("When a limit is exceeded, the API returns 429 Too Many Requests with a Retry-After header. [E3]", "E3")),
 "backoff": ("rate", one("Clients must wait at least the Retry-After value before retrying. [E3]", "E3")),
 "blocked": ("rate", one("A key that keeps sending requests while limited for more than 10 minutes is blocked for an hour, and its owner gets an e-mail. [E3]", "E3")),
 "token_bucket": ("rate", one("The limits are enforced with a token bucket per key, stored in Upstash Redis. [E2]", "E2")),
 "webhooks": ("rate", one("Failed webhook deliveries are retried 5 times over about 24 hours with exponential backoff. [E4]", "E4")),
 "raise": ("rate", one("Enterprise customers can request a higher limit from their account manager; increases above 10,000 requests per minute need the platform team's approval. [E5]", "E5")),
 "rotation": ("oncall", one("The on-call rotation is weekly, with the handover on Mondays at 10:00 CET. [E7]", "E7")),
 "sev1": ("oncall", one("For SEV1 pages, you must acknowledge within 5 minutes and be at a laptop within 15 minutes. [E8]", "E8")),
 "pay": ("oncall", one("Primary on-call is paid EUR 250 per week and secondary EUR 100 per week. [E9]", "E9")),
 "pay_euro": ("oncall", one("On-call pay is €250 a week for the primary and €100 a week for the secondary. [E9]", "E9")),
 "six": ("oncall", one("The policy applies to the six engineers of the platform and backend teams. [E6]", "E6")),
 "sev3": ("oncall", one("SEV3 alerts are handled during working hours (09:00-18:00 CET, Monday to Friday). [E8]", "E8")),
 "one_in_four": ("oncall", one("No one is primary more than one week in four. [E7]", "E7")),
 "invoices": ("ret", one("Booking records and invoices are kept for 7 years after the end of the financial year. [E12]", "E12")),
 "erasure": ("ret", one("Erasure requests are confirmed within 3 business days and completed within 30 days. [E13]", "E13")),
 "backups": ("ret", one("Data that only exists in backups expires with the backup after at most 35 days. [E13]", "E13")),
 "legal_hold": ("ret", one("A legal hold must be approved in writing by the management board and is reviewed every 6 months. [E14]", "E14")),
 "approved": ("ret", one("The data retention policy was approved by the management board on 2025-01-20. [E11]", "E11")),
}
CASES.update({
 "regions": ("stack", one("Our primary region is Amsterdam (ams) and the secondary is Frankfurt (fra). [E16]", "E16")),
 "machines": ("stack", one("Production runs at least three machines in ams and autoscales to up to eight. [E16]", "E16")),
 "autoscale": ("stack", one("Production autoscales up to 8 machines when CPU stays above 70% for 5 minutes. [E16]", "E16")),
 "staging_off": ("stack", one("Staging is stopped automatically outside working hours, from 19:00 to 07:00 CET. [E16]", "E16")),
 "turso": ("stack", one("We use Turso, a fork of SQLite, as our database. [E17]", "E17")),
 "replicas": ("stack", one("Read replicas are in fra and iad, and reads can lag the primary by up to 1 second. [E17]", "E17")),
 "pitr": ("stack", one("Turso's point-in-time recovery covers the last 30 days. [E17]", "E17")),
 "backend": ("stack", one("The backend is written in Python 3.12 with FastAPI and served by Uvicorn with 4 workers per machine. [E18]", "E18")),
 "lead_stack": ("stack", ("Our stack consists of:\n- Backend: Python 3.12 with FastAPI [E18]\n- Database: Turso [E17]",
     [("Backend: Python 3.12 with FastAPI [E18]", ["E18"]), ("Database: Turso [E17]", ["E17"])])),
 "sev1_def": ("inc", one("A SEV1 is when Harbor is down, when bookings fail for more than 5% of requests, or when customer data may be exposed. [E21]", "E21")),
 "ic": ("inc", one("For SEV1 and SEV2 incidents, the first responder becomes the incident commander until they explicitly hand over. [E22]", "E22")),
 "escalate": ("inc", one("If a SEV1 isn't mitigated within 30 minutes, the IC escalates to the CTO by phone. [E22]", "E22")),
 "rollback": ("inc", one("Rolling back the backend takes about 4 minutes. [E23]", "E23")),
 "rollback_pref": ("inc", one("The runbook prefers a rollback over a forward fix. [E23]", "E23")),
 "status_page": ("inc", one("For a SEV1, the status page must be updated within 15 minutes of acknowledgement and then at least every 30 minutes. [E22]", "E22")),
 "biweekly": ("mob", one("Mobile apps are released every two weeks on Tuesdays. [E25]", "E25")),
 "review": ("mob", one("App Store review usually takes one to two days. [E25]", "E25")),
 "stages": ("mob", one("Android rollouts go to 10% of users on day 1, 50% on day 3 and 100% on day 5. [E25]", "E25")),
 "hotfix": ("mob", one("Hotfixes need approval from the CTO. [E26]", "E26")),
 "min_version": ("mob", one("The API returns 426 Upgrade Required for app versions older than six months. [E26]", "E26")),
})


def many(text: str, *claims: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """An answer of several claims, each citing the ids its text names."""
    return text, [(claim, re.findall(r"E\d+", claim)) for claim in claims]


# Written later on 2026-12-06, after the four changes above: the retention table, the runbook, the stack and
# mobile pages, and answers laid out over several claims (bold labels, numbered steps, an opening "Here is ...").
# 49 of these 71 were verified at c9584e7, 60 now.
CASES.update({
 # retention table, as chat models read a table
 "r_logs": ("ret", one("Application logs are kept for 30 days and must not contain message bodies or payment card data. [E12]", "E12")),
 "r_access": ("ret", one("HTTP access logs are retained for 90 days, and IP addresses are truncated after 7 days. [E12]", "E12")),
 "r_backups": ("ret", one("Nightly database backups are kept for 35 days, encrypted at rest. [E12]", "E12")),
 "r_tickets": ("ret", one("Support tickets are kept for 2 years after they are closed; attachments are deleted after 6 months. [E12]", "E12")),
 "r_analytics": ("ret", one("Product analytics events are kept for 14 months and are pseudonymised. [E12]", "E12")),
 "r_account": ("ret", one("Customer account data is kept while the account is active. [E12]", "E12")),
 "r_bullets": ("ret", ("Retention periods:\n- Application logs: 30 days [E12]\n- HTTP access logs: 90 days [E12]\n- Database backups: 35 days [E12]",
     [("Application logs: 30 days [E12]", ["E12"]), ("HTTP access logs: 90 days [E12]", ["E12"]), ("Database backups: 35 days [E12]", ["E12"])])),
 "r_finance": ("ret", one("Invoices and booking records that we must keep by law are retained and restricted to the finance team. [E13]", "E13")),
 "r_hold": ("ret", one("A legal hold suspends deletion of the data it names. [E14]", "E14")),
 "r_gdpr": ("ret", one("Under GDPR article 17, erasure requests are confirmed within 3 business days. [E13]", "E13")),
 # runbook
 "i_ack": ("inc", one("The on-call primary must acknowledge a SEV1 page within 5 minutes and a SEV2 page within 15 minutes. [E22]", "E22")),
 "i_channel": ("inc", one("The incident commander opens a dedicated channel and posts the severity and a one-line summary. [E22]", "E22")),
 "i_rollback_cmd": ("inc", one("To roll back the backend, list the releases with `fly releases -a harbor-prod` and redeploy the last good image. [E23]", "E23")),
 "i_pitr": ("inc", one("To recover data, use Turso point-in-time recovery into a new database, never over the primary. [E23]", "E23")),
 "i_window": ("inc", one("Restores are only possible within the 30-day recovery window. [E23]", "E23")),
 "i_postmortem": ("inc", one("Every SEV1 and SEV2 gets a blameless postmortem within 5 business days. [E24]", "E24")),
 "i_actions": ("inc", one("Each postmortem lists at least one action item with an owner and a due date. [E24]", "E24")),
 "i_summary": ("inc", one("Customer-facing summaries of SEV1 incidents are published within 2 business days. [E24]", "E24")),
 "i_sev2": ("inc", one("A SEV2 is a degraded major feature, for example slow payments, with a workaround or limited impact. [E21]", "E21")),
 "i_sev3": ("inc", one("SEV3 covers minor defects with no customer impact beyond inconvenience, handled in normal working hours. [E21]", "E21")),
 # stack
 "s_fly": ("stack", one("We host on Fly.io, with Amsterdam as the primary region and Frankfurt as the secondary. [E16]", "E16")),
 "s_warm": ("stack", one("The secondary region keeps one warm machine for failover. [E16]", "E16")),
 "s_staging": ("stack", one("Staging runs on a single machine in Amsterdam. [E16]", "E16")),
 "s_writes": ("stack", one("Writes always go to the primary database, while reads may be served by a replica. [E17]", "E17")),
 "s_export": ("stack", one("A nightly export at 02:00 UTC is copied to object storage and kept for 35 days. [E17]", "E17")),
 "s_web": ("stack", one("The web client is built with SvelteKit and deployed as static assets behind the same Fly.io app. [E18]", "E18")),
 "s_mobile": ("stack", one("The mobile clients are written in Swift for iOS 16 and later and Kotlin for Android 10 and later. [E18]", "E18")),
 "s_redis": ("stack", one("Upstash Redis in eu-west-1 handles rate limiting and sessions. [E18]", "E18")),
 "s_canary": ("stack", one("Each deploy first updates one canary machine and watches its error rate for 15 minutes. [E19]", "E19")),
 "s_rolling": ("stack", one("If the canary's 5xx rate stays below 1%, the remaining machines are updated with a rolling strategy. [E19]", "E19")),
 "s_deploytime": ("stack", one("A full production deploy takes about 10 minutes. [E19]", "E19")),
 "s_migrations": ("stack", one("Database migrations run before the canary step and must be backwards compatible with the previous release. [E19]", "E19")),
 "s_actions": ("stack", one("Deploys run from GitHub Actions on every merge to main. [E19]", "E19")),
 # mobile
 "m_branch": ("mob", one("Releases are cut from the release branch on the previous Thursday. [E25]", "E25")),
 "m_needs": ("mob", one("A release needs a green CI run, a manual smoke test on a physical iPhone and Android device, and sign-off from the mobile lead. [E25]", "E25")),
 "m_halt": ("mob", one("A rollout stage is halted if the crash-free rate drops below 99.5% [E25, E26].", "E25", "E26")),
 "m_rules": ("mob", one("Business rules are not implemented in the mobile clients, because a release reaches most users only after 2 to 5 days. [E26]", "E26")),
 "m_update": ("mob", one("When the API answers 426, the app asks the user to update. [E26]", "E26")),
 "m_hotfix": ("mob", one("Hotfixes that cannot wait for the next train need approval from the CTO. [E26]", "E26")),
 "o_secondary": ("oncall", one("If the primary hasn't acknowledged a page within 10 minutes, the secondary takes over. [E7]", "E7")),
 "o_handover": ("oncall", one("Handover happens every Monday at 10:00 CET in a 15-minute call, where the outgoing primary walks through open incidents and alerts. [E7]", "E7")),
 "o_shadow": ("oncall", one("Before their first week as primary, new engineers shadow two rotations. [E7]", "E7")),
 "o_sev2": ("oncall", one("SEV2 pages have to be acknowledged within 15 minutes. [E8]", "E8")),
 "o_laptop": ("oncall", one("For a SEV1 page you need to be at a laptop with connectivity within 15 minutes. [E8]", "E8")),
 "o_page_pay": ("oncall", one("Pages outside working hours are paid EUR 50 per incident, plus 150% of the hourly rate for time worked. [E9]", "E9")),
 "o_night": ("oncall", one("After a night page between 23:00 and 07:00 CET that took more than an hour, the engineer can start at noon the next day or take the morning off. [E9]", "E9")),
 "o_noisy": ("oncall", one("An alert that paged twice in one rotation without needing action must be fixed or downgraded by the next handover. [E10]", "E10")),
 "o_ticket": ("oncall", one("The outgoing primary is responsible for filing the ticket. [E10]", "E10")),
 "o_multi": ("oncall", many("On-call works like this:\n\n- **Rotation:** weekly, with the handover on Monday at 10:00 CET [E7].\n- **Pay:** EUR 250 per week as primary and EUR 100 per week as secondary [E9].\n- **Response:** SEV1 pages must be acknowledged within 5 minutes [E8].",
        "Rotation: weekly, with the handover on Monday at 10:00 CET [E7].", "Pay: EUR 250 per week as primary and EUR 100 per week as secondary [E9].", "Response: SEV1 pages must be acknowledged within 5 minutes [E8].")),
 "rl_headers": ("rate", one("Every response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset headers. [E3]", "E3")),
 "rl_body": ("rate", one("The 429 response has a JSON body with the error rate_limited and a retry_after value. [E3]", "E3")),
 "rl_refill": ("rate", one("The token bucket refills continuously, and the burst is the bucket size. [E2]", "E2")),
 "rl_bookings": ("rate", one("Booking creation (POST /api/v2/bookings) is capped at 30 requests per minute per user on every plan, with a burst of 10. [E2]", "E2")),
 "rl_unauth_ip": ("rate", one("For unauthenticated calls, the token bucket is kept per IP address. [E2]", "E2")),
 "rl_marked": ("rate", one("After the fifth failed delivery, the endpoint is marked failing and the account owner is notified. [E4]", "E4")),
 "rl_schedule": ("rate", one("Retries happen after 1 minute, 10 minutes, 1 hour, 6 hours and 17 hours. [E4]", "E4")),
 "rl_timeout": ("rate", one("A delivery counts as failed on any non-2xx answer or a timeout of 10 seconds. [E4]", "E4")),
 "rl_multi": ("rate", many("Here is how rate limiting works. Limits use a token bucket per key, stored in Upstash Redis [E2]. When you exceed a limit, the API answers 429 Too Many Requests with a Retry-After header [E3]. Clients must back off for at least the Retry-After value [E3].",
        "Limits use a token bucket per key, stored in Upstash Redis [E2].", "When you exceed a limit, the API answers 429 Too Many Requests with a Retry-After header [E3].", "Clients must back off for at least the Retry-After value [E3].")),
 "rl_enterprise": ("rate", one("Enterprise customers can ask their account manager for a higher limit. [E5]", "E5")),
 "i_multi": ("inc", many("1. Acknowledge the page: within 5 minutes for SEV1 and 15 minutes for SEV2 [E22].\n2. The first responder becomes incident commander [E22].\n3. Escalate to the CTO by phone if a SEV1 is not mitigated within 30 minutes [E22].",
        "Acknowledge the page: within 5 minutes for SEV1 and 15 minutes for SEV2 [E22].", "The first responder becomes incident commander [E22].", "Escalate to the CTO by phone if a SEV1 is not mitigated within 30 minutes [E22].")),
 "i_prefer": ("inc", one("You should prefer a rollback over a forward fix. [E23]", "E23")),
 "i_switch": ("inc", one("After verifying the recovered database, switch the DATABASE_URL secret. [E23]", "E23")),
 "i_review": ("inc", one("Postmortems are reviewed in the weekly engineering meeting. [E24]", "E24")),
 "s_db_multi": ("stack", many("**Database:** Turso (libSQL, a fork of SQLite) [E17]. The primary is in ams, with read replicas in fra and iad [E17]. Point-in-time recovery covers the last 30 days [E17].",
        "Database: Turso (libSQL, a fork of SQLite) [E17].", "The primary is in ams, with read replicas in fra and iad [E17].", "Point-in-time recovery covers the last 30 days [E17].")),
 "s_tigris": ("stack", one("Object storage is Tigris, in the bucket harbor-prod-assets. [E18]", "E18")),
 "s_uvicorn": ("stack", one("Each machine runs 4 Uvicorn workers. [E18]", "E18")),
 "s_lag": ("stack", one("Replica reads can lag the primary by up to one second. [E17]", "E17")),
 "s_machines": ("stack", one("Production machines are shared-cpu-2x with 1 GB of RAM each. [E16]", "E16")),
 "r_confirm_multi": ("ret", many("Erasure requests are confirmed within 3 business days [E13] and completed within 30 days [E13].",
        "Erasure requests are confirmed within 3 business days [E13]", "and completed within 30 days [E13].")),
 "r_reviewed": ("ret", one("The retention policy is reviewed yearly. [E11]", "E11")),
 "r_truncate": ("ret", one("IP addresses in HTTP access logs are truncated to /24 for IPv4 or /48 for IPv6 after 7 days. [E12]", "E12")),
})
# 2026-12-06 (afternoon): worded to touch the checks added that day (time scopes, "an hour", clauses, pairs of values)
CASES.update({
 "F3_refill": ("rate", one("The bucket refills continuously. [E2]", "E2")),
 "F3_block_hour": ("rate", one("A key that keeps sending requests while limited for more than 10 minutes is blocked for an hour. [E3]", "E3")),
 "F3_retry_s": ("rate", one("The Retry-After header is given in seconds. [E3]", "E3")),
 "F3_sev3_hours": ("oncall", one("SEV3 alerts are handled during working hours, Monday to Friday. [E8]", "E8")),
 "F3_secondary_fra": ("stack", one("The secondary region is fra (Frankfurt). [E16]", "E16")),
 "F3_primary_ams": ("stack", one("The primary region is ams. [E16]", "E16")),
 "F3_writes": ("stack", one("Writes always go to the primary. [E17]", "E17")),
 "F3_reads": ("stack", one("Reads may be served by a replica. [E17]", "E17")),
 "F3_android_d5": ("mob", one("Android builds reach 100% of users on day 5. [E25]", "E25")),
 "F3_android_d3": ("mob", one("Android builds are rolled out to 50% of users on day 3. [E25]", "E25")),
 "F3_review": ("mob", one("App Store review usually takes a day or two. [E25]", "E25")),
 "F3_review2": ("mob", one("App Store review usually takes 1 to 2 days. [E25]", "E25")),
 "F3_rollback": ("inc", one("A rollback takes about four minutes. [E23]", "E23")),
 "F3_prefer": ("inc", one("Prefer a rollback over a forward fix. [E23]", "E23")),
 "F3_staging_stop": ("stack", one("Staging is stopped automatically outside working hours. [E16]", "E16")),
 "F3_export": ("stack", one("The nightly export is kept for 35 days. [E17]", "E17")),
 "F3_pitr": ("stack", one("Turso point-in-time recovery covers the last 30 days. [E17]", "E17")),
 "F3_status": ("inc", one("For SEV1, the status page is updated at least every 30 minutes until resolution. [E22]", "E22")),
 "F3_erasure": ("ret", one("An erasure request is confirmed to the requester within 3 business days. [E13]", "E13")),
 "F3_legal": ("ret", one("Legal holds are reviewed every six months. [E14]", "E14")),
 "F3_handover": ("oncall", one("The handover is a 15-minute call on Monday at 10:00 CET. [E7]", "E7")),
 "F3_rest": ("oncall", one("After a night page that took more than an hour, the engineer starts work at noon the next day. [E9]", "E9")),
 "F3_canary": ("stack", one("A deploy watches the canary's error rate for 15 minutes. [E19]", "E19")),
 "F3_deploy_time": ("stack", one("A full production deploy takes about ten minutes. [E19]", "E19")),
 "F3_backups_expire": ("ret", one("Data held only in backups expires with the backup after at most 35 days. [E13]", "E13")),
 "F3_two_on_call": ("oncall", one("One primary and one secondary are on call at any time. [E7]", "E7")),
})
CASES.update({
 # a fourth round (2026-12-06, evening), worded to reach the checks added that day: a time scope, "about a
 # day", a fraction of a unit ("half an hour"), clauses, ", with" phrases, spelled numbers, dates written out
 "F4_sev3_weekdays": ("oncall", one("Non-paging alerts (SEV3) are handled on weekdays during working hours. [E8]", "E8")),
 "F4_sev3_wait": ("oncall", one("SEV3 alerts wait for working hours: 09:00 to 18:00 CET, Monday to Friday. [E8]", "E8")),
 "F4_staging_overnight": ("stack", one("Staging is stopped automatically overnight, from 19:00 to 07:00 CET. [E16]", "E16")),
 "F4_retry_whole": ("rate", one("The Retry-After header is given in whole seconds. [E3]", "E3")),
 "F4_timeout": ("rate", one("A webhook delivery times out after 10 seconds. [E4]", "E4")),
 "F4_block_1h": ("rate", one("Such a key is blocked for one hour and its owner is e-mailed. [E3]", "E3")),
 "F4_fortnight": ("mob", one("The mobile apps ship every two weeks, on Tuesdays. [E25]", "E25")),
 "F4_branch": ("mob", one("The release branch is cut on the Thursday before the release. [E25]", "E25")),
 "F4_five_attempts": ("rate", one("A failing webhook is attempted five times over roughly 24 hours. [E4]", "E4")),
 "F4_ic_half": ("inc", one("If a SEV1 is not mitigated within half an hour, the IC escalates to the CTO by phone. [E22]", "E22")),
 "F4_status_half": ("inc", one("During a SEV1 the status page is updated at least every half hour until resolution. [E22]", "E22")),
 "F4_pm_five": ("inc", one("Postmortems for SEV1 and SEV2 incidents are written within five business days. [E24]", "E24")),
 "F4_summary_two": ("inc", one("Customer-facing summaries of SEV1 incidents are published within two business days. [E24]", "E24")),
 "F4_rest": ("oncall", one("After a night page that took over an hour, the engineer can start at noon the next day or take the morning off. [E9]", "E9")),
 "F4_single_canary": ("stack", one("A deploy first updates a single canary machine. [E19]", "E19")),
 "F4_canary_quarter": ("stack", one("The canary's error rate is watched for a quarter of an hour. [E19]", "E19")),
 "F4_deploy_ten": ("stack", one("A full production deploy takes roughly ten minutes. [E19]", "E19")),
 "F4_migrations": ("stack", one("Database migrations run before the canary step and must stay backwards compatible with the previous release for at least one deploy. [E19]", "E19")),
 "F4_with_autoscale": ("stack", one("Production runs at least three machines in ams, scaling up to eight when CPU stays above 70% for five minutes. [E16]", "E16")),
 "F4_with_regions": ("stack", one("We host on Fly.io, with the primary region in Amsterdam (ams) and the secondary in Frankfurt (fra). [E16]", "E16")),
 "F4_clause": ("stack", one("Writes go to the primary, and reads may be served by a replica. [E17]", "E17")),
 "F4_clause2": ("stack", one("Reads may come from a replica, while writes always go to the primary. [E17]", "E17")),
 "F4_backend": ("stack", one("The backend runs Python 3.12 with FastAPI behind Uvicorn, with 4 workers per machine. [E18]", "E18")),
 "F4_mobile_versions": ("stack", one("The iOS client is written in Swift for iOS 16 and later, and the Android client in Kotlin for Android 10 and later. [E18]", "E18")),
 "F4_redis": ("stack", one("Rate limiting and sessions use Upstash Redis in eu-west-1. [E18]", "E18")),
 "F4_tigris": ("stack", one("Object storage is on Tigris, in the bucket harbor-prod-assets. [E18]", "E18")),
 "F4_426": ("mob", one("The API answers 426 Upgrade Required to app versions older than six months. [E26]", "E26")),
 "F4_server_enforces": ("mob", one("The server enforces the minimum supported app version. [E26]", "E26")),
 "F4_hotfix_ios": ("mob", one("Hotfixes that cannot wait for the next train use an expedited review request on iOS. [E26]", "E26")),
 "F4_smoke": ("mob", one("Each release needs a manual smoke test on at least one physical iPhone and one physical Android device. [E25]", "E25")),
 "F4_signoff": ("mob", one("A release needs sign-off from the mobile lead. [E25]", "E25")),
 "F4_bookings": ("rate", one("Bookings are limited to 30 requests per minute per user on every plan. [E2]", "E2")),
 "F4_burst_std": ("rate", one("The Standard plan's burst is 100 requests. [E2]", "E2")),
 "F4_unauth_ip": ("rate", one("Unauthenticated calls get a token bucket per IP address. [E2]", "E2")),
 "F4_handover_walk": ("oncall", one("At the weekly handover the outgoing primary walks through open incidents and alerts. [E7]", "E7")),
 "F4_shadow": ("oncall", one("New engineers shadow two rotations before they are primary for the first time. [E7]", "E7")),
 "F4_export": ("stack", one("A nightly export runs at 02:00 UTC and is copied to object storage. [E17]", "E17")),
 "F4_never_over": ("inc", one("Point-in-time recovery goes into a new database, never over the primary. [E23]", "E23")),
 "F4_legal": ("ret", one("A legal hold must be approved in writing by the management board and suspends deletion of the data it names. [E14]", "E14")),
 "F4_six_eng": ("oncall", one("The on-call policy covers six engineers from the platform and backend teams. [E6]", "E6")),
 "F4_effective": ("oncall", one("The on-call policy has been in effect since 1 April 2025. [E6]", "E6")),
 "F4_runbook_v3": ("inc", one("The runbook is at version 3, effective since June 1, 2025. [E20]", "E20")),
 "F4_changed": ("rate", one("The rate limit page was last changed on 11 August 2025. [E1]", "E1")),
 "F4_one_warm": ("stack", one("The secondary region always keeps one warm machine for failover. [E16]", "E16")),
 "F4_about_a_day": ("rate", one("Webhook retries are spread over about a day. [E4]", "E4")),
 "F4_raise_team": ("rate", one("Raising a limit above 10,000 requests per minute needs the platform team's approval. [E5]", "E5")),
 "F4_every_year": ("ret", one("The data retention policy is reviewed every year. [E11]", "E11")),
})

# A sixth round (2026-12-06, later), written before any of it was run, in other shapes (a lead such as
# "According to the rate limit page," or "Yes,", a condition put first, a fact taken from a list item or a
# table row): 27 of 32 verified at first, 29 after the fixes of that afternoon (a lead before a comma is no list
# item; "each backend machine" for "per machine").
CASES.update({
 "F6_01": ("rate", one('According to the rate limit page, a Standard plan key may send 600 requests per minute. [E2]', 'E2')),
 "F6_02": ("rate", one('Yes, unauthenticated requests are limited, to 60 requests per minute per IP address. [E2]', 'E2')),
 "F6_03": ("rate", one('The bucket size is the burst, and the bucket refills continuously. [E2]', 'E2')),
 "F6_04": ("rate", one('The token buckets are kept in Upstash Redis. [E2]', 'E2')),
 "F6_05": ("rate", one('A rate-limited request gets a 429 Too Many Requests answer with a Retry-After header in whole seconds. [E3]', 'E3')),
 "F6_06": ("rate", one('If a key keeps sending requests for more than 10 minutes while limited, it is blocked for 1 hour. [E3]', 'E3')),
 "F6_07": ("rate", one('Webhook deliveries get 5 attempts over about 24 hours. [E4]', 'E4')),
 "F6_08": ("rate", one('After the fifth failed delivery, the endpoint is marked failing. [E4]', 'E4')),
 "F6_09": ("rate", one('A webhook delivery that times out after 10 seconds is retried. [E4]', 'E4')),
 "F6_10": ("rate", one('To raise above 10,000 requests per minute, the platform team must approve. [E5]', 'E5')),
 "F6_11": ("oncall", one('At any time, one primary and one secondary are on call. [E7]', 'E7')),
 "F6_12": ("oncall", one('The handover call takes 15 minutes, on Monday at 10:00 CET. [E7]', 'E7')),
 "F6_13": ("oncall", one('New engineers shadow two rotations before their first week as primary. [E7]', 'E7')),
 "F6_14": ("oncall", one('If the primary has not acknowledged a page within 10 minutes, the secondary takes over. [E7]', 'E7')),
 "F6_15": ("oncall", one('SEV2 pages must be acknowledged within 15 minutes. [E8]', 'E8')),
 "F6_16": ("oncall", one('As secondary, on-call pay is EUR 100 per week. [E9]', 'E9')),
 "F6_page_pay": ("oncall", one('Pages outside working hours pay EUR 50 per incident plus time worked at 150% of the hourly rate. [E9]', 'E9')),
 "F6_noisy": ("oncall", one('The outgoing primary files the ticket for a noisy alert. [E10]', 'E10')),
 "F6_19": ("ret", one('Application logs are kept for 30 days. [E12]', 'E12')),
 "F6_20": ("ret", one('Support tickets are kept for 2 years after they are closed, and their attachments are deleted after 6 months. [E12]', 'E12')),
 "F6_21": ("ret", one('Product analytics events are pseudonymised and kept for 14 months. [E12]', 'E12')),
 "F6_22": ("ret", one('HTTP access logs are kept for 90 days, with IP addresses truncated after 7 days. [E12]', 'E12')),
 "F6_23": ("ret", one('Backups are not restored selectively to erase data. [E13]', 'E13')),
 "F6_24": ("ret", one('Legal holds are reviewed every 6 months. [E14]', 'E14')),
 "F6_harbor_region": ("stack", one("Harbor's primary region is Amsterdam (`ams`), and Frankfurt (`fra`) is the secondary. [E16]", 'E16')),
 "F6_26": ("stack", one('Production autoscales up to 8 machines when CPU stays above 70% for 5 minutes. [E16]', 'E16')),
 "F6_27": ("stack", one('Staging is stopped automatically from 19:00 to 07:00 CET. [E16]', 'E16')),
 "F6_28": ("stack", one('Read replicas of the database are in `fra` and `iad`. [E17]', 'E17')),
 "F6_29": ("stack", one('Replica reads can lag the primary by up to 1 second. [E17]', 'E17')),
 "F6_30": ("stack", one('Each backend machine runs 4 Uvicorn workers. [E18]', 'E18')),
 "F6_31": ("stack", one('A canary machine is watched for 15 minutes before the rest are updated. [E19]', 'E19')),
 "F6_32": ("stack", one('Migrations run before the canary step. [E19]', 'E19')),
})

KNOWN_GAPS = {
    "sev1_def", "hotfix",
    # the verifier reads these rows of the retention table below its bar (0.48-0.56)
    "r_logs", "r_access", "r_tickets", "r_account", "r_truncate",
    # a list of conditions or examples the splitter leaves as fragments; a claim that reads a word the evidence
    # does not use ("covers", "counts as failed", "Retries happen"); a bound read on a condition ("drops below
    # 99.5%" over "at or above 99.5%"); an opening plural read as a name ("Pages ...")
    "i_sev2", "i_sev3", "rl_timeout", "rl_schedule", "m_halt", "o_page_pay",
    # the fourth round: "always" the sentence does not say ("always keeps one warm machine"); words the evidence
    # words otherwise ("retries are spread over about a day" over "retried ... over about 24 hours"); the permission
    # "may ask" of the sentence before read as a hedge; "every year" read by the verifier as contradicted (0.68)
    "F4_one_warm", "F4_about_a_day", "F4_raise_team", "F4_every_year",
    # the sixth round: an opening plural read as a name ("Pages ...", as o_page_pay); "noisy alert" for "an alert that
    # paged twice ... without needing action" (words the evidence does not use); "Harbor", a name the stack page
    # never uses
    "F6_page_pay", "F6_noisy", "F6_harbor_region",
}


# Lies worded over the same chunks the way the faithful answers above are (bold labels, asides, weekdays, "each",
# participles, "no one", table cells, "Here is ..."): none may be shown as verified. Those that were shown verified
# until 2026-12-06 (a universal licensed by the other sentence of a pair, the value of another row, list item or part
# of the sentence, "5xx" read as 5, the weekday of another frequency) are named in README.md.
LIES = {
 "L_bold_num": ("oncall", many("- **Pay:** EUR 500 per week as primary [E9].", "Pay: EUR 500 per week as primary [E9].")),
 "L_bold_neg": ("oncall", many("- **Rotation:** the rotation is not weekly [E7].", "Rotation: the rotation is weekly [E7].")),
 "L_aside": ("inc", one("Recover data with Turso point-in-time recovery directly over the primary. [E23]", "E23")),
 "L_aside2": ("inc", one("To recover data, restore over the primary database, then switch the DATABASE_URL secret. [E23]", "E23")),
 "L_friday": ("oncall", one("The handover happens every Friday at 10:00 CET. [E7]", "E7")),
 "L_daily": ("oncall", one("The handover happens every day at 10:00 CET. [E7]", "E7")),
 "L_each_eng": ("oncall", one("Each engineer is paid EUR 250 per week. [E9]", "E9")),
 "L_each_key": ("rate", one("Each customer gets 600 requests per minute. [E2]", "E2")),
 "L_failed": ("rate", one("Failed webhook deliveries are not retried. [E4]", "E4")),
 "L_failed2": ("rate", one("Successful webhook deliveries are retried 5 times with exponential backoff. [E4]", "E4")),
 "L_noone": ("oncall", one("No one is secondary more than 1 week in 4. [E7]", "E7")),
 "L_backups": ("ret", one("Data held only in backups is restored selectively. [E13]", "E13")),
 "L_backups2": ("ret", one("Data held only in backups never expires. [E13]", "E13")),
 "L_sev3": ("oncall", one("SEV3 alerts are pages handled outside working hours. [E8]", "E8")),
 "L_analytics": ("ret", one("Product analytics events are kept for 14 months and include e-mail addresses. [E12]", "E12")),
 "L_here": ("rate", many("Here is how rate limiting was removed. Limits use a token bucket per key, stored in Upstash Redis [E2].",
     "Limits use a token bucket per key, stored in Upstash Redis [E2].")),
 "L_generic": ("stack", one("Each deploy first updates every machine at once. [E19]", "E19")),

 # later the same day: one fact changed at a time, over every page (a value of another row or item, a role, a
 # bound, a modal, a frequency, an order ...); the 4 of the 68 still shown (7 until the fourth round, 5 until the sixth) are named in README.md
 "L2_std_burst": ("rate", one("The Standard plan allows a burst of 500 requests. [E2]", "E2")),
 "L2_ent_600": ("rate", one("Enterprise plan keys get 600 requests per minute. [E2]", "E2")),
 "L2_unauth_key": ("rate", one("Unauthenticated requests are limited to 60 requests per minute per key. [E2]", "E2")),
 "L2_bookings_ent": ("rate", one("POST /api/v2/bookings is limited to 30 requests per minute only on the Enterprise plan. [E2]", "E2")),
 "L2_bucket_pg": ("rate", one("The token buckets are stored in PostgreSQL. [E2]", "E2")),
 "L2_block_day": ("rate", one("A key that keeps sending requests while limited for more than 10 minutes is blocked for 1 day. [E3]", "E3")),
 "L2_webhook_3": ("rate", one("Webhook deliveries are retried 3 times over about 24 hours. [E4]", "E4")),
 "L2_webhook_2xx": ("rate", one("Webhook deliveries are retried on any 2xx answer. [E4]", "E4")),
 "L2_raise_any": ("rate", one("Any customer may ask for a higher limit through their account manager. [E5]", "E5")),
 "L2_raise_cto": ("rate", one("Increases above 10,000 requests per minute need approval from the CTO. [E5]", "E5")),
 "L2_raise_no": ("rate", one("Increases above 10,000 requests per minute need no approval. [E5]", "E5")),
 "L2_handover_tue": ("oncall", one("The handover is on Tuesday at 10:00 CET. [E7]", "E7")),
 "L2_handover_30": ("oncall", one("The handover is a 30-minute call. [E7]", "E7")),
 "L2_two_primary": ("oncall", one("Two primaries are on call at any time. [E7]", "E7")),
 "L2_shadow_one": ("oncall", one("New engineers shadow one rotation before their first primary week. [E7]", "E7")),
 "L2_secondary_5": ("oncall", one("The secondary takes over when the primary has not acknowledged a page within 5 minutes. [E7]", "E7")),
 "L2_sev2_5": ("oncall", one("SEV2 pages must be acknowledged within 5 minutes. [E8]", "E8")),
 "L2_page_100": ("oncall", one("Every page outside working hours is paid at EUR 100 per incident. [E9]", "E9")),
 "L2_incoming": ("oncall", one("The incoming primary files the ticket. [E10]", "E10")),
 "L2_applies_all": ("oncall", one("The on-call policy applies to all engineers of the company. [E6]", "E6")),
 "L2_invoices_5": ("ret", one("Invoices are kept for 5 years after the end of the financial year. [E12]", "E12")),
 "L2_secondary_250": ("oncall", one("The secondary is paid EUR 250 per week. [E9]", "E9")),
 "L2_weekly": ("mob", one("Harbor's mobile apps are released every week, on Tuesdays. [E25]", "E25")),
 "L2_tickets_attach": ("ret", one("Support ticket attachments are kept for 2 years. [E12]", "E12")),
 "L2_applogs_90": ("ret", one("Application logs are kept for 90 days. [E12]", "E12")),
 "L2_access_30": ("ret", one("HTTP access logs are kept for 30 days. [E12]", "E12")),
 "L2_backups_unenc": ("ret", one("Database backups are not encrypted. [E12]", "E12")),
 "L2_analytics_names": ("ret", one("Product analytics events include names. [E12]", "E12")),
 "L2_erasure_7": ("ret", one("An erasure request is completed within 7 days. [E13]", "E13")),
 "L2_erasure_invoices": ("ret", one("An erasure request deletes invoices too. [E13]", "E13")),
 "L2_legal_ceo": ("ret", one("A legal hold is approved by the CEO alone. [E14]", "E14")),
 "L2_legal_yearly": ("ret", one("Legal holds are reviewed every 12 months. [E14]", "E14")),
 "L2_aws": ("stack", one("We host on AWS. [E16]", "E16")),
 "L2_max_3": ("stack", one("Production runs at most 3 machines in ams. [E16]", "E16")),
 "L2_autoscale_50": ("stack", one("Production autoscales when CPU stays above 50% for 5 minutes. [E16]", "E16")),
 "L2_lag_10": ("stack", one("Reads from a replica can lag the primary by up to 10 seconds. [E17]", "E17")),
 "L2_pitr_90": ("stack", one("Turso point-in-time recovery covers the last 90 days. [E17]", "E17")),
 "L2_django": ("stack", one("The backend is Python 3.12 with Django. [E18]", "E18")),
 "L2_workers_8": ("stack", one("Uvicorn runs 8 workers per machine. [E18]", "E18")),
 "L2_canary_5": ("stack", one("A deploy watches the canary's error rate for 5 minutes. [E19]", "E19")),
 "L2_migr_after": ("stack", one("Database migrations run after the canary step. [E19]", "E19")),
 "L2_sev1_1pct": ("inc", one("SEV1 means bookings cannot be created for more than 1% of requests. [E21]", "E21")),
 "L2_status_60": ("inc", one("For SEV1, the status page is updated at least every 60 minutes until resolution. [E22]", "E22")),
 "L2_escalate_email": ("inc", one("If a SEV1 is not mitigated within 30 minutes, the IC escalates to the CTO by e-mail. [E22]", "E22")),
 "L2_rollback_40": ("inc", one("A rollback takes about 40 minutes. [E23]", "E23")),
 "L2_postmortem_sev3": ("inc", one("A blameless postmortem is written for every SEV3. [E24]", "E24")),
 "L2_summary_sev2": ("inc", one("Customer-facing incident summaries are published for every SEV2 within 2 business days. [E24]", "E24")),
 "L2_rules_mobile": ("mob", one("Business rules are implemented in the mobile clients. [E25]", "E25")),
 "L2_426_3mo": ("mob", one("The API answers 426 Upgrade Required to app versions older than 3 months. [E26]", "E26")),
 "L2_hotfix_lead": ("mob", one("Hotfixes need approval from the mobile lead. [E25]", "E25")),
 # shown verified until 2026-12-06 (afternoon): a time scope, a unit of time, a clause's subject with the clause
 # beside it's predicate, two values of two parts of a list, "about a week" read as no value, terms exchanged
 "L2_refill": ("rate", one("The bucket refills once per minute. [E2]", "E2")),
 "L2_retry_ms": ("rate", one("The Retry-After header is given in milliseconds. [E3]", "E3")),
 "L2_block_perm": ("rate", one("A key that keeps sending requests while limited is blocked permanently. [E3]", "E3")),
 "L2_sev3_weekend": ("oncall", one("SEV3 alerts are handled on weekends. [E8]", "E8")),
 "L2_primary_fra": ("stack", one("The primary region is fra (Frankfurt). [E16]", "E16")),
 "L2_staging_always": ("stack", one("Staging runs around the clock. [E16]", "E16")),
 "L2_writes_replica": ("stack", one("Writes may go to a replica. [E17]", "E17")),
 "L2_forward_fix": ("inc", one("Prefer a forward fix over a rollback. [E23]", "E23")),
 "L2_android_day1": ("mob", one("Android builds are rolled out to 100% of users on day 1. [E25]", "E25")),
 "L2_review_week": ("mob", one("App Store review usually takes about a week. [E25]", "E25")),
 "L2_hygiene_once": ("oncall", one("Any alert that paged once without needing action must be fixed by the next handover. [E10]", "E10")),
 # a third round the same afternoon, one fact changed at a time again
 "L3_replicas_ams": ("stack", one("The read replicas are in ams and iad. [E17]", "E17")),
 "L3_app_enforces": ("mob", one("The minimum supported app version is enforced by the app. [E26]", "E26")),
 "L3_refill_hourly": ("rate", one("The bucket refills every hour. [E2]", "E2")),
 "L3_staging_nonstop": ("stack", one("Staging runs nonstop. [E16]", "E16")),
 "L3_sev3_saturday": ("oncall", one("SEV3 alerts are handled on Saturdays. [E8]", "E8")),
 "L3_backups_forever": ("ret", one("Data held only in backups is kept forever. [E13]", "E13")),
 "L3_secondary_ams": ("stack", one("The secondary region is ams (Amsterdam). [E16]", "E16")),
 "L3_reads_primary": ("stack", one("Reads always go to the primary. [E17]", "E17")),
 "L3_android_50_d1": ("mob", one("Android builds reach 50% of users on day 1. [E25]", "E25")),
 "L3_review_month": ("mob", one("App Store review usually takes about a month. [E25]", "E25")),
 "L3_rollback_hour": ("inc", one("A rollback takes about an hour. [E23]", "E23")),
 "L3_legal_year": ("ret", one("Legal holds are reviewed once a year. [E14]", "E14")),
 "L3_pitr_week": ("stack", one("Turso point-in-time recovery covers the last week. [E17]", "E17")),
 "L3_status_hourly": ("inc", one("For SEV1, the status page is updated every hour until resolution. [E22]", "E22")),
 "L3_confirm_week": ("ret", one("An erasure request is confirmed to the requester within a week. [E13]", "E13")),
 "L3_canary_hour": ("stack", one("A deploy watches the canary's error rate for an hour. [E19]", "E19")),
 "L3_ic_hour": ("inc", one("If a SEV1 is not mitigated within an hour, the IC escalates to the CTO by phone. [E22]", "E22")),
 "L3_handover_daily": ("oncall", one("The handover is a daily 15-minute call. [E7]", "E7")),
 "L3_hotfix_swap": ("mob", one("Hotfixes use an expedited review request on Android and a 100% rollout on iOS. [E26]", "E26")),
 "L3_tickets_6mo": ("ret", one("Support tickets are kept for 6 months after the ticket is closed. [E12]", "E12")),
 "L3_three_on_call": ("oncall", one("Three engineers are on call at any time. [E7]", "E7")),
 "L3_postmortem_day": ("inc", one("A blameless postmortem is written for every SEV1 within a day. [E24]", "E24")),
 "L3_access_always": ("ret", one("HTTP access logs are kept permanently. [E12]", "E12")),
 "L3_lag_minute": ("stack", one("Reads from a replica can lag the primary by up to a minute. [E17]", "E17")),
 # a fourth round the same evening: a date written out over an ISO date, a fraction of a unit, ...
 # two of the 7 second-round lies still shown until this round: one word the evidence never uses, words left out
 "L2_webhook_lin": ("rate", one("Webhook deliveries are retried with linear backoff. [E4]", "E4")),
 "L2_webhook_del": ("rate", one("After the fifth failure the endpoint is deleted. [E4]", "E4")),
 "L4_with_wrong": ("stack", one("We host on Fly.io, with the primary region in Frankfurt (fra). [E16]", "E16")),
 "L4_clause_swap": ("stack", one("Reads go to the primary, and writes may be served by a replica. [E17]", "E17")),
 "L4_hotfix_android": ("mob", one("Hotfixes that cannot wait for the next train use an expedited review request on Android. [E26]", "E26")),
 "L4_sev3_clock": ("oncall", one("SEV3 alerts are handled around the clock. [E8]", "E8")),
 "L4_block_day": ("rate", one("Such a key is blocked for one day and its owner is e-mailed. [E3]", "E3")),
 "L4_lag_minute": ("stack", one("Replica reads can lag the primary by up to one minute. [E17]", "E17")),
 "L4_about_week": ("rate", one("Webhook retries are spread over about a week. [E4]", "E4")),
 "L4_canary_half": ("stack", one("The canary's error rate is watched for half an hour. [E19]", "E19")),
 "L4_backend_8": ("stack", one("The backend runs Python 3.12 with FastAPI behind Uvicorn, with 8 workers per machine. [E18]", "E18")),
 "L4_426_year": ("mob", one("The API answers 426 Upgrade Required to app versions older than a year. [E26]", "E26")),
 "L4_effective_may": ("oncall", one("The on-call policy has been in effect since 1 May 2025. [E6]", "E6")),
 "L4_v4": ("inc", one("The runbook is at version 4, effective since June 1, 2025. [E20]", "E20")),
 "L4_burst_500": ("rate", one("The Standard plan's burst is 500 requests. [E2]", "E2")),
 "L4_pm_ten": ("inc", one("Postmortems for SEV1 and SEV2 incidents are written within ten business days. [E24]", "E24")),
 "L4_summary_five": ("inc", one("Customer-facing summaries of SEV1 incidents are published within five business days. [E24]", "E24")),
 "L4_shadow_three": ("oncall", one("New engineers shadow three rotations before they are primary for the first time. [E7]", "E7")),
 "L4_every_month": ("ret", one("The data retention policy is reviewed every month. [E11]", "E11")),
 "L4_single_two": ("stack", one("A deploy first updates two canary machines. [E19]", "E19")),
 "L4_quarter_day": ("stack", one("The canary's error rate is watched for a quarter of a day. [E19]", "E19")),
 "L4_changed_sept": ("rate", one("The rate limit page was last changed on 11 September 2025. [E1]", "E1")),
 "L4_signoff_cto": ("mob", one("A release needs sign-off from the CTO. [E25]", "E25")),
}


# The sixth round's lies (29 of 32 refused at first; 30 with the contradiction margin, the 2 still shown are named in
# README.md), and two of the lies README named as still shown that the margin now refuses
LIES.update({
 "L6_deleted": ("rate", one("After the fifth failed delivery, the endpoint is deleted. [E4]", "E4")),
 "L2_emulator": ("mob", one("A release needs a smoke test on an emulator. [E25]", "E25")),
 "L2_mobile_lead": ("mob", one("Hotfixes need approval from the mobile lead. [E26]", "E26")),
 "L6_01": ("rate", one('According to the rate limit page, a Standard plan key may send 6,000 requests per minute. [E2]', 'E2')),
 "L6_02": ("rate", one('Yes, unauthenticated requests are limited, to 60 requests per minute per API key. [E2]', 'E2')),
 "L6_03": ("rate", one('The bucket refills once a minute. [E2]', 'E2')),
 "L6_04": ("rate", one('The token buckets are kept in Amazon DynamoDB. [E2]', 'E2')),
 "L6_05": ("rate", one('A rate-limited request gets a 503 Service Unavailable answer. [E3]', 'E3')),
 "L6_06": ("rate", one('If a key keeps sending requests for more than 10 minutes while limited, it is blocked for 1 day. [E3]', 'E3')),
 "L6_07": ("rate", one('Webhook deliveries get 3 attempts over about 24 hours. [E4]', 'E4')),
 "L6_10": ("rate", one('To raise above 10,000 requests per minute, the account manager must approve. [E5]', 'E5')),
 "L6_11": ("oncall", one('At any time, two primaries are on call. [E7]', 'E7')),
 "L6_12": ("oncall", one('The handover call takes 30 minutes, on Monday at 10:00 CET. [E7]', 'E7')),
 "L6_13": ("oncall", one('New engineers shadow one rotation before their first week as primary. [E7]', 'E7')),
 "L6_15": ("oncall", one('SEV2 pages must be acknowledged within 5 minutes. [E8]', 'E8')),
 "L6_16": ("oncall", one('As secondary, on-call pay is EUR 250 per week. [E9]', 'E9')),
 "L6_17": ("oncall", one('Pages during working hours pay EUR 50 per incident. [E9]', 'E9')),
 "L6_18": ("oncall", one('The incoming primary files the ticket for a noisy alert. [E10]', 'E10')),
 "L6_19": ("ret", one('Application logs are kept for 90 days. [E12]', 'E12')),
 "L6_20": ("ret", one('Support tickets are kept for 2 years after they are opened. [E12]', 'E12')),
 "L6_21": ("ret", one('Product analytics events are kept for 14 months with e-mail addresses. [E12]', 'E12')),
 "L6_22": ("ret", one('HTTP access logs are kept for 30 days. [E12]', 'E12')),
 "L6_23": ("ret", one('Backups are restored selectively to erase data. [E13]', 'E13')),
 "L6_24": ("ret", one('Legal holds are reviewed every year. [E14]', 'E14')),
 "L6_25": ("stack", one("Harbor's primary region is Frankfurt (`fra`), and Amsterdam (`ams`) is the secondary. [E16]", 'E16')),
 "L6_26": ("stack", one('Production autoscales up to 12 machines when CPU stays above 70% for 5 minutes. [E16]', 'E16')),
 "L6_27": ("stack", one('Staging runs around the clock. [E16]', 'E16')),
 "L6_28": ("stack", one('Read replicas of the database are in `fra` and `lhr`. [E17]', 'E17')),
 "L6_29": ("stack", one('Replica reads never lag the primary. [E17]', 'E17')),
 "L6_30": ("stack", one('Each backend machine runs 8 Uvicorn workers. [E18]', 'E18')),
 "L6_31": ("stack", one('A canary machine is watched for 5 minutes before the rest are updated. [E19]', 'E19')),
 "L6_32": ("stack", one('Migrations run after the canary step. [E19]', 'E19')),
})


def respond(plane_for, name: str, cases: dict = CASES):
    """The answer over its page's chunks, in the mode the router decides (learnt from a first reply, as a model is
    told it in its prompt)."""
    topic, (text, claims) = cases[name]
    evidence, page_of = corpus_evidence()
    pages = {page_of[e] for _, ids in claims for e in ids}
    evidence = [item for item in evidence if page_of[item["id"]] in pages]
    first = plane_for(GateHarness.envelope(text, claims, domain_flags=["requires_retrieval"])).respond(Q[topic], evidence=evidence)
    if first.mode == "System" and list(first.domain_flags) == ["requires_retrieval"]:
        return first
    return plane_for(GateHarness.envelope(text, claims, mode=first.mode, domain_flags=first.domain_flags)).respond(Q[topic], evidence=evidence)


@pytest.mark.parametrize("name", sorted(set(CASES) - KNOWN_GAPS))
def test_a_faithful_answer_over_the_corpus_is_verified_and_shown_as_written(name, plane_for):
    response = respond(plane_for, name)
    assert response.status == "pass" and response.verified, (name, response.assistant_text)
    assert response.assistant_text == CASES[name][1][0]


@pytest.mark.parametrize("name", sorted(KNOWN_GAPS))
def test_the_known_gaps_over_the_corpus_are_still_not_verified(name, plane_for):
    assert not respond(plane_for, name).verified


@pytest.mark.parametrize("name", sorted(LIES))
def test_a_lie_over_the_corpus_is_not_verified_nor_shown(name, plane_for):
    response = respond(plane_for, name, LIES)
    assert not response.verified, (name, response.assistant_text)
    false_sentence = re.sub(r"\s*\[E\d+\]", "", LIES[name][1][0]).split(". ")[0].rstrip(".")
    assert false_sentence not in response.assistant_text, (name, response.assistant_text)
