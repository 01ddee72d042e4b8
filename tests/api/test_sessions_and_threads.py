"""Sessions (CFS-020 §2.2: session context lives in the plane, is discarded at session end), sharing one plane
across threads, the async variant, and the model-concurrency bound."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from controlplane import ControlPlane
from controlplane.pytest_plugin import GateHarness

EVIDENCE = [{"id": "E1", "text": "We host on Fly.io. DB is Turso (SQLite)."}]
ANSWER = GateHarness.envelope("We host on Fly.io [E1].", claims=[("We host on Fly.io [E1].", ["E1"])],
                              domain_flags=["architecture"])


class SlowModel:
    """A model adapter that takes ``delay`` seconds per call (like a local LLM) and records how many calls overlap.
    It delegates the answer to the real scripted adapter. With ``wait_for``, a call waits (``delay`` at most) until
    that many calls have been inside at once, then stays ``hold`` seconds more: whether calls overlap is then counted
    whatever the machine's load, not left to how long each request takes to reach the model."""

    def __init__(self, inner, delay: float, wait_for: int = 0, hold: float = 0.3):
        self.inner, self.delay, self.wait_for, self.hold = inner, delay, wait_for, hold
        self.active = 0
        self.max_active = 0
        self._entered = threading.Condition()

    def generate(self, query, context, params):
        with self._entered:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            self._entered.notify_all()
            if self.wait_for:
                self._entered.wait_for(lambda: self.max_active >= self.wait_for, timeout=self.delay)
        try:
            time.sleep(self.hold if self.wait_for else self.delay)
            return self.inner.generate(query, context, params)
        finally:
            with self._entered:
                self.active -= 1

    def is_ready(self):
        return True

    def metadata(self):
        return self.inner.metadata()


def user_contents(bundle) -> list[str]:
    return [m["content"] for m in bundle.messages]


def test_a_session_keeps_its_turns_and_end_session_discards_them(control_plane, core_policy, trace_store):
    plane = control_plane([ANSWER], policy=core_policy)
    first = plane.respond("Where do we host? (architecture)", evidence=EVIDENCE, session_id="s1")
    second = plane.respond("And the database architecture?", evidence=EVIDENCE, session_id="s1")

    # the second request was answered with the first turn (the gated answer, not raw model output) before it
    assert user_contents(trace_store.load_bundle(second.trace_id)) == [
        "Where do we host? (architecture)", first.assistant_text, "And the database architecture?",
    ]
    assert [t["role"] for t in plane.session_turns("s1")] == ["user", "assistant", "user", "assistant"]
    assert "s1" in plane.active_sessions()

    assert plane.end_session("s1") == 4
    assert plane.session_turns("s1") == [] and "s1" not in plane.active_sessions()
    third = plane.respond("Where do we host? (architecture)", evidence=EVIDENCE, session_id="s1")
    assert user_contents(trace_store.load_bundle(third.trace_id)) == ["Where do we host? (architecture)"]
    assert plane.end_session("never-started") == 0


def test_session_context_is_never_persisted_outside_the_trace(control_plane, core_policy, trace_store, scripted_model):
    plane = control_plane([ANSWER], policy=core_policy)
    plane.respond("Where do we host? (architecture)", evidence=EVIDENCE, session_id="s1")
    plane.close()
    # a new plane on the same store knows nothing of the session: the context was only in the old plane's memory
    fresh = control_plane([ANSWER], policy=core_policy)
    reply = fresh.respond("And the database architecture?", evidence=EVIDENCE, session_id="s1")
    assert user_contents(trace_store.load_bundle(reply.trace_id)) == ["And the database architecture?"]
    # and the session id only labels the traces
    rows = trace_store.db.execute("SELECT session_id FROM traces").fetchall()
    assert {r[0] for r in rows} == {"s1"}


def test_without_a_session_or_with_keep_context_false_nothing_is_kept(control_plane, core_policy, trace_store):
    plane = control_plane([ANSWER], policy=core_policy)
    plane.respond("Where do we host? (architecture)", evidence=EVIDENCE)
    plane.respond("Where do we host? (architecture)", evidence=EVIDENCE, session_id="s2", keep_context=False)
    assert plane.active_sessions() == []


def test_sessions_are_bounded_and_expire(scripted_model, core_policy):
    with ControlPlane(model=scripted_model([ANSWER]), policy=core_policy, db=False, max_sessions=2,
                      max_session_turns=2, session_idle_seconds=3600) as plane:
        for sid in ("a", "b", "c"):
            plane.respond("Where do we host? (architecture)", evidence=EVIDENCE, session_id=sid)
        assert plane.active_sessions() == ["b", "c"]  # the least recently used one was discarded
        plane.respond("More architecture?", evidence=EVIDENCE, session_id="c")
        assert [t["role"] for t in plane.session_turns("c")] == ["user", "assistant"]  # only the newest turns
    with ControlPlane(model=scripted_model([ANSWER]), policy=core_policy, db=False,
                      session_idle_seconds=0.05) as plane:
        plane.respond("Where do we host? (architecture)", evidence=EVIDENCE, session_id="idle")
        time.sleep(0.1)
        assert plane.active_sessions() == []


def test_one_plane_shared_by_many_threads(control_plane, core_policy, trace_store):
    plane = control_plane([ANSWER], policy=core_policy)
    sessions = [f"user-{n}" for n in range(8)]

    def chat(session_id: str) -> list[str]:
        ids = []
        for turn in range(3):
            question = f"{session_id} architecture question {turn}"
            reply = plane.respond(question, evidence=EVIDENCE, session_id=session_id)
            assert reply.status == "pass", reply.as_json()
            ids.append(reply.trace_id)
        return ids

    with ThreadPoolExecutor(8) as pool:
        results = dict(zip(sessions, pool.map(chat, sessions)))

    all_ids = [tid for ids in results.values() for tid in ids]
    assert len(set(all_ids)) == 24
    assert len(trace_store.list_traces(limit=100)) == 24
    for session_id, ids in results.items():
        last = trace_store.load_bundle(ids[-1])
        users = [m["content"] for m in last.messages if m["role"] == "user"]
        # each session saw only its own turns, in order
        assert users == [f"{session_id} architecture question {t}" for t in range(3)]
        assert [e.seq for e in last.events] == list(range(len(last.events)))


def test_model_calls_are_bounded_by_max_model_concurrency(scripted_model, core_policy):
    for limit, expect_overlap in ((1, False), (3, True)):
        slow = SlowModel(scripted_model([ANSWER]), delay=0.15)
        with ControlPlane(model=slow, policy=core_policy, db=False, max_model_concurrency=limit) as plane, \
                ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(lambda n: plane.respond(f"architecture {n}", evidence=EVIDENCE), range(4)))
        assert all(r.status == "pass" for r in replies)
        assert (slow.max_active > 1) is expect_overlap and slow.max_active <= limit


def test_arespond_runs_in_the_thread_pool_and_never_blocks_the_event_loop(scripted_model, core_policy):
    # found flaky under load: with a fixed 0.3 s per call, the first request could leave the model before the second
    # reached it; each call now waits (10 s at most) for the other to be inside too
    slow = SlowModel(scripted_model([ANSWER]), delay=10, wait_for=2)
    plane = ControlPlane(model=slow, policy=core_policy, db=False, max_model_concurrency=2)

    async def main():
        ticks = 0
        done = asyncio.Event()

        async def ticker():
            nonlocal ticks
            while not done.is_set():
                if slow.active == 2:  # a tick while both requests sit inside the model
                    ticks += 1
                await asyncio.sleep(0.01)

        tick_task = asyncio.create_task(ticker())
        replies = await asyncio.gather(
            plane.arespond("Where do we host? (architecture)", EVIDENCE, session_id="a"),
            plane.arespond("Where do we host? (architecture)", evidence=EVIDENCE, session_id="b"),
        )
        done.set()
        await tick_task
        return replies, ticks

    try:
        replies, ticks = asyncio.run(main())
    finally:
        plane.close()
    assert [r.status for r in replies] == ["pass", "pass"]
    assert {r.session_id for r in replies} == {"a", "b"}
    # Counted, not timed (a loaded machine stretches any wall-clock bound): both requests were inside the model at
    # once (two model slots), and the event loop kept ticking while they waited there.
    assert slow.max_active == 2
    assert ticks >= 1
